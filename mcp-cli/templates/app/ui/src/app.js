// The view of the `text_stats` tool, written with the official MCP Apps SDK's `App` class:
// it shows the result the host sends (`ontoolresult`) and calls the tool again through the
// host's bridge (`callServerTool`) when the form is submitted.
import { App } from "@modelcontextprotocol/ext-apps";

const app = new App({ name: "{{name}}-view", version: "0.1.0" });

const $ = (id) => document.getElementById(id);

/** Shows a `tools/call` result: its structured content, or its text when it failed. */
function show(result) {
  if (result.isError || !result.structuredContent) {
    $("status").textContent = result.content?.[0]?.text ?? "The tool failed.";
    $("stats").hidden = true;
    return;
  }
  const { words, characters, lines } = result.structuredContent;
  $("words").textContent = words;
  $("characters").textContent = characters;
  $("lines").textContent = lines;
  $("stats").hidden = false;
  $("status").textContent = "Measured.";
}

// Set before connecting, so the first result is not missed.
app.ontoolresult = show;

$("again").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("status").textContent = "Measuring…";
  try {
    show(await app.callServerTool({ name: "text_stats", arguments: { text: $("text").value } }));
  } catch (error) {
    $("status").textContent = `The call failed: ${error.message}`;
  }
});

await app.connect();
