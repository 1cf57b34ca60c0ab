// The page of `cargo mcp preview`: hosts a tool's MCP Apps view the way a chat host does.
//
// - The view runs in a sandbox proxy on another origin (`http://localhost:PORT/…/sandbox`,
//   this page being `http://127.0.0.1:PORT/…/`), served with the Content Security Policy of
//   the view's `_meta.ui.csp`; the proxy renders the HTML in an inner iframe and relays
//   messages (the spec's `sandbox-proxy-ready` / `sandbox-resource-ready` handshake).
// - The official `AppBridge` (@modelcontextprotocol/ext-apps, pinned in package-lock.json)
//   answers the view: `ui/initialize`, then `tool-input` and `tool-result` of the tool's call;
//   the view's `tools/call` and `resources/read` go to the server through `rpc` (the preview
//   server's MCP client, over the dev session's relay).
// - Every second the page asks whether the server was rebuilt or the view changed, and
//   reloads when either happened.
import { AppBridge, PostMessageTransport, buildAllowAttribute } from "@modelcontextprotocol/ext-apps/app-bridge";

const base = location.pathname.replace(/\/+$/, "");
const query = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);

/** One request to the server, through the preview server; a JSON-RPC error is thrown. */
async function rpc(method, params) {
  const response = await fetch(`${base}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ method, params: params ?? {} }),
  });
  const body = await response.json();
  if (body.error) {
    const error = new Error(body.error.message);
    error.code = body.error.code;
    throw error;
  }
  return body.result;
}

function status(text) {
  $("status").textContent = text;
}

async function state() {
  return (await fetch(`${base}/state`)).json();
}

async function main() {
  const { tools } = await rpc("tools/list", {});
  const withView = tools.filter((t) => typeof t._meta?.ui?.resourceUri === "string");
  const tool = query.get("tool")
    ? tools.find((t) => t.name === query.get("tool"))
    : withView[0];
  if (!tool) {
    status(query.get("tool") ? `No tool named ${query.get("tool")}.` : "No tool of this server has a view (`_meta.ui.resourceUri`).");
    return;
  }
  const uri = tool._meta?.ui?.resourceUri;
  if (!uri) {
    status(`The tool ${tool.name} has no view.`);
    return;
  }
  const args = JSON.parse(query.get("args") ?? "{}");
  $("tool").textContent = `${tool.name}(${JSON.stringify(args)}) → ${uri}`;

  const read = await rpc("resources/read", { uri });
  const view = read.contents?.[0];
  if (!view || typeof view.text !== "string") {
    status(`${uri} has no HTML text.`);
    return;
  }
  const ui = view._meta?.ui ?? {};

  const frame = document.createElement("iframe");
  frame.id = "view";
  frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  const allow = buildAllowAttribute(ui.permissions);
  if (allow) frame.setAttribute("allow", allow);
  frame.src = `http://localhost:${location.port}${base}/sandbox?csp=${encodeURIComponent(JSON.stringify(ui.csp ?? {}))}`;
  if (ui.prefersBorder !== false) frame.classList.add("bordered");
  $("stage").replaceChildren(frame);

  const bridge = new AppBridge(
    null,
    { name: "cargo-mcp-preview", version: "0.1.0" },
    { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: { theme: "light", displayMode: "inline", platform: "web", locale: navigator.language } },
  );
  bridge.oncalltool = (params) => rpc("tools/call", params);
  bridge.onreadresource = (params) => rpc("resources/read", params);
  bridge.onlistresources = (params) => rpc("resources/list", params);
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${height}px`;
  };
  bridge.onmessage = async (params) => {
    log(`ui/message: ${JSON.stringify(params)}`);
    return {};
  };
  bridge.onopenlink = async ({ url }) => {
    log(`ui/open-link: ${url} (not opened by the preview)`);
    return { isError: true };
  };
  bridge.onloggingmessage = (params) => log(`log: ${JSON.stringify(params)}`);
  bridge.onsandboxready = () => {
    bridge.sendSandboxResourceReady({ html: view.text, csp: ui.csp, permissions: ui.permissions });
  };
  bridge.oninitialized = async () => {
    status("The view is connected; calling the tool…");
    await bridge.sendToolInput({ arguments: args });
    try {
      const result = await rpc("tools/call", { name: tool.name, arguments: args });
      $("result").textContent = JSON.stringify(result, null, 2);
      await bridge.sendToolResult(result);
      status(result.isError ? "The tool returned an error; the view has it." : "The view has the tool's result.");
    } catch (error) {
      status(`The call failed: ${error.message}`);
    }
  };
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  status("Loading the view…");

  // Reload when the server was rebuilt or the view changed.
  const seen = (await state()).generation;
  setInterval(async () => {
    try {
      const now = await state();
      const again = await rpc("resources/read", { uri });
      if (now.generation !== seen || again.contents?.[0]?.text !== view.text) location.reload();
    } catch {
      // The server is restarting: ask again at the next tick.
    }
  }, 1000);
}

function log(line) {
  $("log").textContent += `${line}\n`;
}

main().catch((error) => status(`The preview failed: ${error.message}`));
