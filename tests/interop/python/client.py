"""Interop check: drive an MCP server over stdio or Streamable HTTP with the official Python
client (`mcp`, pinned in requirements.txt).

Usage: python client.py --mode legacy|auto|2026-07-28 -- <server command> [args...]   (stdio)
       python client.py --mode legacy|auto|2026-07-28 --url http://127.0.0.1:PORT/mcp  (HTTP)
       add --calls N to finish with N more `add` calls, each checked (a load run; the
       summary then carries "calls": N)
       add --target everything when the server is (or fronts, flat) the reference
       @modelcontextprotocol/server-everything: its tools (echo, get-sum, a long-running
       operation with progress, sampling and elicitation requests), resources and prompts are
       checked instead of echo-server's

  legacy      -> Client(..., mode="legacy")      (plain `initialize` handshake)
  auto        -> Client(..., mode="auto")        (`server/discover` probe on the same process,
                                                  fallback to `initialize`)
  2026-07-28  -> Client(..., mode="2026-07-28")  (adopts 2026-07-28 without any probe)

Over HTTP the client is given the URL itself (`Client(url, ...)`).

The client passes its own elicitation, sampling and roots callbacks (which is how it declares
those capabilities), then calls echo-server's tools that ask: `ask_name` (twice: the callback
accepts, then declines), `ask_model` and `list_roots`, and checks that each result carries
what the callback answered. On a legacy connection the SDK runs the callbacks for the
server's requests; on a 2026-07-28 one its input-required driver runs the same callbacks and
retries.

On success prints one JSON line to stdout, e.g.
  {"client":"python","mode":"legacy","protocolVersion":"2025-11-25","tools":["add","echo",…],
   …,"answered":{"elicitation":["s-1","s-2"],"sampling":["s-3"],"roots":["s-4"]},"transport":"stdio"}
and exits 0; `answered` lists the ids the callbacks saw (the server's JSON-RPC ids on a legacy
connection, the `inputRequests` keys on a modern one). Any failed check prints a message to
stderr and exits 1.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import traceback
from typing import Any

import anyio
from mcp import Client, Implementation, StdioServerParameters
from mcp.client.session import ClientRequestContext
from mcp_types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitResult,
    ListRootsResult,
    ResourceTemplateReference,
    Root,
    TextContent,
)

# INTEROP_TIME_SCALE (a number, default 1) stretches both limits for slow-starting servers
# (the Windows build under Wine).
TIME_SCALE = float(os.environ.get("INTEROP_TIME_SCALE") or 1)
OVERALL_TIMEOUT_S = 30.0 * TIME_SCALE
REQUEST_TIMEOUT_S = 10.0 * TIME_SCALE
MODES = ("legacy", "auto", "2026-07-28")
ASKING_TOOLS = ("ask_name", "ask_model", "list_roots")
# What the roots callback answers.
ROOTS = ("file:///tmp/interop-python/project", "file:///tmp/interop-python/notes")


class CheckError(Exception):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise CheckError(message)


def show(value: Any) -> str:
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        value = dump(mode="json", by_alias=True, exclude_none=True)
    return json.dumps(value, default=repr)


def expect_single_text(label: str, result: Any, expected: str) -> None:
    check(result.is_error is not True, f"{label}: unexpected isError result: {show(result)}")
    content = result.content
    check(len(content) == 1, f"{label}: expected exactly one content item, got {len(content)}: {show(result)}")
    item = content[0]
    check(getattr(item, "type", None) == "text", f"{label}: expected a text content item, got {show(item)}")
    check(item.text == expected, f"{label}: expected text {expected!r}, got {item.text!r}")


class Callbacks:
    """The client's own answers to what a server asks. Each records the id it was called with;
    `elicitation_action` says whether the user accepts the form or declines it."""

    def __init__(self) -> None:
        self.elicitation_action = "accept"
        self.ids: dict[str, list[str]] = {"elicitation": [], "sampling": [], "roots": []}

    async def elicitation(self, context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        self.ids["elicitation"].append(str(context.request_id))
        schema = getattr(params, "requested_schema", None) or {}
        check(
            schema.get("properties", {}).get("name", {}).get("type") == "string",
            f"elicitation/create: no string field 'name' in {show(params)}",
        )
        if self.elicitation_action == "decline":
            return ElicitResult(action="decline")
        return ElicitResult(action="accept", content={"name": "Grace from python"})

    async def sampling(self, context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
        self.ids["sampling"].append(str(context.request_id))
        last = params.messages[-1]
        check(
            last.role == "user" and getattr(last.content, "type", None) == "text",
            f"sampling/createMessage: the last message is not the user's text: {show(params)}",
        )
        return CreateMessageResult(
            role="assistant",
            model="interop-python-model",
            stop_reason="endTurn",
            content=TextContent(type="text", text=f"python model read: {last.content.text}"),
        )

    async def roots(self, context: ClientRequestContext) -> ListRootsResult:
        self.ids["roots"].append(str(context.request_id))
        return ListRootsResult(roots=[Root(uri=uri) for uri in ROOTS])


async def run(mode: str, target: str | list[str], calls: int = 0, checks: str = "echo-server") -> dict[str, Any]:
    server: str | StdioServerParameters
    if isinstance(target, str):
        server = target
    else:
        server = StdioServerParameters(command=target[0], args=target[1:])
    client_info = Implementation(name="mcp-toolkit-interop-python", version="0.0.0")
    callbacks = Callbacks()
    async with Client(
        server,
        mode=mode,
        client_info=client_info,
        read_timeout_seconds=REQUEST_TIMEOUT_S,
        elicitation_callback=callbacks.elicitation,
        sampling_callback=callbacks.sampling,
        list_roots_callback=callbacks.roots,
    ) as client:
        protocol_version = client.protocol_version
        check(isinstance(protocol_version, str) and protocol_version != "", "no negotiated protocol version")

        if checks == "everything":
            return {
                "client": "python",
                "mode": mode,
                "protocolVersion": protocol_version,
                **(await check_everything(client, callbacks)),
            }

        listing = await client.list_tools()
        by_name = {tool.name: tool for tool in listing.tools}
        for name in ("echo", "add", *ASKING_TOOLS):
            tool = by_name.get(name)
            check(tool is not None, f"tools/list: no tool named {name!r} (got {sorted(by_name)})")
            assert tool is not None
            check(
                isinstance(tool.description, str) and tool.description.strip() != "",
                f"tools/list: tool {name!r} has no description: {show(tool)}",
            )
            check(
                isinstance(tool.input_schema, dict) and tool.input_schema.get("type") == "object",
                f"tools/list: tool {name!r} inputSchema.type is not 'object': {show(tool.input_schema)}",
            )

        expect_single_text(
            'echo {text:"hello from python"}',
            await client.call_tool("echo", {"text": "hello from python"}),
            "hello from python",
        )
        expect_single_text("add {a:2,b:3}", await client.call_tool("add", {"a": 2, "b": 3}), "5")
        expect_single_text("add {a:1.5,b:2.25}", await client.call_tool("add", {"a": 1.5, "b": 2.25}), "3.75")

        # A wrongly typed argument is a tool-level (isError) failure, not a JSON-RPC error.
        try:
            bad = await client.call_tool("add", {"a": "x", "b": 3})
        except Exception as error:  # noqa: BLE001 - any raise here is the failure being reported
            raise CheckError(f'add {{a:"x",b:3}}: expected an isError result, but the call failed: {error!r}') from error
        check(bad.is_error is True, f'add {{a:"x",b:3}}: expected isError: true, got {show(bad)}')

        primitives = await check_primitives(client)
        answered = await check_asking(client, callbacks)
        for n in range(calls):
            expect_single_text(f"add {{a:{n},b:1}}", await client.call_tool("add", {"a": n, "b": 1}), str(n + 1))

        summary = {
            "client": "python",
            "mode": mode,
            "protocolVersion": protocol_version,
            "tools": sorted(by_name),
            **primitives,
            "answered": answered,
            "transport": "http" if isinstance(target, str) else "stdio",
        }
        if calls:
            summary["calls"] = calls
        return summary


def text_of(result: Any) -> str:
    """The text items of a tool's result, one per line."""
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


async def check_everything(client: Any, callbacks: Callbacks) -> dict[str, Any]:
    """The reference server-everything's tools, resources and prompts, with its progress and asks."""
    names = sorted(tool.name for tool in (await client.list_tools()).tools)
    for name in ("echo", "get-sum", "trigger-long-running-operation", "trigger-sampling-request",
                 "trigger-elicitation-request"):
        check(name in names, f"tools/list: no tool named {name!r} (got {names})")
    expect_single_text("echo", await client.call_tool("echo", {"message": "hello from python"}), "Echo: hello from python")
    expect_single_text("get-sum", await client.call_tool("get-sum", {"a": 2, "b": 3}), "The sum of 2 and 3 is 5.")

    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    long = await client.call_tool(
        "trigger-long-running-operation", {"duration": 0.3, "steps": 3}, progress_callback=on_progress
    )
    check(long.is_error is not True, f"trigger-long-running-operation: {show(long)}")
    check(progress == sorted(set(progress)) and len(progress) == 3, f"three increasing progress notifications, got {progress}")

    sampled = await client.call_tool("trigger-sampling-request", {"prompt": "the gateway", "maxTokens": 10})
    check(
        sampled.is_error is not True
        and "python model read: Resource trigger-sampling-request context: the gateway" in text_of(sampled),
        f"trigger-sampling-request: {show(sampled)}",
    )
    elicited = await client.call_tool("trigger-elicitation-request", {})
    check(
        elicited.is_error is not True and "- Name: Grace from python" in text_of(elicited),
        f"trigger-elicitation-request: {show(elicited)}",
    )

    resources = (await client.list_resources()).resources
    check(len(resources) > 0, "resources/list is empty")
    first = await client.read_resource(resources[0].uri)
    check(len(first.contents) > 0 and str(first.contents[0].uri) == str(resources[0].uri), f"read {resources[0].uri}: {show(first)}")
    prompts = sorted(p.name for p in (await client.list_prompts()).prompts)
    check("simple-prompt" in prompts, f"prompts/list: {prompts}")
    simple = await client.get_prompt("simple-prompt")
    check(len(simple.messages) > 0, f"prompts/get simple-prompt: {show(simple)}")
    with_args = await client.get_prompt("args-prompt", {"city": "Lyon"})
    check("Lyon" in show(with_args), f"prompts/get args-prompt: {show(with_args)}")
    return {
        "target": "everything",
        "tools": names,
        "progress": progress,
        "answered": callbacks.ids,
        "resources": len(resources),
        "prompts": prompts,
    }


async def check_primitives(client: Any) -> dict[str, Any]:
    """The resources, templates and prompts of echo-server, as the client's own API sees them."""
    resources = (await client.list_resources()).resources
    uris = sorted(str(r.uri) for r in resources)
    check(uris == ["echo://logo", "echo://readme"], f"resources/list: {show(resources)}")
    templates = (await client.list_resource_templates()).resource_templates
    check(
        [t.uri_template for t in templates] == ["echo://greeting/{name}"],
        f"resources/templates/list: {show(templates)}",
    )

    readme = await client.read_resource("echo://readme")
    check(
        len(readme.contents) == 1
        and readme.contents[0].mime_type == "text/markdown"
        and readme.contents[0].text.startswith("# echo-server"),
        f"read echo://readme: {show(readme)}",
    )
    logo = await client.read_resource("echo://logo")
    check(
        logo.contents[0].mime_type == "image/png"
        and base64.b64decode(logo.contents[0].blob)[1:4] == b"PNG",
        f"read echo://logo: {show(logo)}",
    )
    hello = await client.read_resource("echo://greeting/Grace")
    check(
        str(hello.contents[0].uri) == "echo://greeting/Grace" and hello.contents[0].text == "Hello, Grace!",
        f"read echo://greeting/Grace: {show(hello)}",
    )
    try:
        await client.read_resource("echo://missing")
    except Exception as error:  # noqa: BLE001 - the error is what is checked
        code = getattr(getattr(error, "error", None), "code", None)
        check(code in (-32602, -32002), f"read echo://missing: expected 'Resource not found', got {error!r}")
    else:
        raise CheckError("read echo://missing: expected an error, got a result")

    prompts = (await client.list_prompts()).prompts
    names = sorted(p.name for p in prompts)
    check(names == ["greet", "logo", "readme"], f"prompts/list: {show(prompts)}")
    check(all(p.description for p in prompts), f"prompts/list: a prompt without description: {show(prompts)}")
    greet = await client.get_prompt("greet", {"name": "Grace"})
    check(
        len(greet.messages) == 1
        and greet.messages[0].role == "user"
        and greet.messages[0].content.text == "Greet Grace in a casual way.",
        f"prompts/get greet: {show(greet)}",
    )
    embedded = await client.get_prompt("readme")
    resource = [m for m in embedded.messages if m.content.type == "resource"]
    check(
        len(resource) == 1 and str(resource[0].content.resource.uri) == "echo://readme",
        f"prompts/get readme: {show(embedded)}",
    )
    image = await client.get_prompt("logo")
    check(
        image.messages[0].content.type == "image" and image.messages[0].content.mime_type == "image/png",
        f"prompts/get logo: {show(image)}",
    )

    completion = await client.complete(
        ResourceTemplateReference(type="ref/resource", uri="echo://greeting/{name}"),
        {"name": "name", "value": "g"},
    )
    check(completion.completion.values == ["Grace"], f"completion/complete: {show(completion)}")
    return {"resources": uris, "prompts": names, "completed": completion.completion.values}


async def check_asking(client: Any, callbacks: Callbacks) -> dict[str, list[str]]:
    """Calls the tools that ask the client; each result must carry the callback's answer."""
    expect_single_text("ask_name (accepted)", await client.call_tool("ask_name", {}), "Hello, Grace from python!")
    callbacks.elicitation_action = "decline"
    expect_single_text(
        "ask_name (declined)", await client.call_tool("ask_name", {}), "You declined to say your name."
    )
    expect_single_text(
        "ask_model",
        await client.call_tool("ask_model", {"question": "What is 3 + 4?"}),
        "python model read: What is 3 + 4?",
    )
    expect_single_text("list_roots", await client.call_tool("list_roots", {}), "\n".join(ROOTS))
    ids = callbacks.ids
    check(
        [len(ids["elicitation"]), len(ids["sampling"]), len(ids["roots"])] == [2, 1, 1],
        f"each callback runs once per ask, got {ids}",
    )
    return ids


def describe(error: BaseException) -> str:
    """Flatten exception groups (anyio task groups wrap errors) into readable text."""
    if isinstance(error, CheckError):
        return str(error)
    if isinstance(error, BaseExceptionGroup):
        leaves = [describe(inner) for inner in error.exceptions]
        return "; ".join(leaves)
    return "unexpected error:\n" + "".join(traceback.format_exception(error)).rstrip()


def overall_timeout(calls: int) -> float:
    """The time a run gets: a load run gets time for its calls too."""
    return OVERALL_TIMEOUT_S + calls * 0.2


async def main_async(mode: str, target: str | list[str], calls: int, checks: str) -> dict[str, Any]:
    # The `async with Client` inside closes the client (and so the server subprocess) on any
    # exit, the timeout's cancellation included.
    with anyio.fail_after(overall_timeout(calls)):
        return await run(mode, target, calls, checks)


def main() -> int:
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(prog="client.py")
    parser.add_argument("--mode", required=True, choices=MODES)
    parser.add_argument("--url", help="a Streamable HTTP endpoint instead of a server command")
    parser.add_argument("--calls", type=int, default=0, help="more `add` calls to finish with")
    parser.add_argument(
        "--target", default="echo-server", choices=("echo-server", "everything"), help="which server's items to check"
    )
    opts = parser.parse_args(argv[:split])
    server = argv[split + 1 :]
    if (opts.url is None) == (not server):
        print("client.py: give --url or a server command after '--' (one of them)", file=sys.stderr)
        return 2
    target: str | list[str] = opts.url if opts.url is not None else server

    try:
        summary = anyio.run(main_async, opts.mode, target, opts.calls, opts.target)
    except TimeoutError:
        print(f"client.py [mode {opts.mode}]: timed out after {overall_timeout(opts.calls):g} s", file=sys.stderr)
        return 1
    except BaseException as error:  # noqa: BLE001 - report everything, exit 1
        if isinstance(error, KeyboardInterrupt):
            raise
        print(f"client.py [mode {opts.mode}]: {describe(error)}", file=sys.stderr)
        return 1
    print(json.dumps(summary, separators=(",", ":")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
