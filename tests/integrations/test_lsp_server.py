"""`stridelint server` end to end: pygls' own client starts the real server in a subprocess,
opens documents, receives diagnostics, asks for code actions and applies their edits."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from stridelint.config import Config
from stridelint.engine import fix_text, lint_text
from stridelint.source import SourceText, apply_edits

TIMEOUT = 60  # seconds for any one answer: the server imports LibCST on its first lint

BROADCAST_SUM = '''import torch


def count(x, n):
    e = x.expand(n, -1)
    return (e != 0).sum()
'''

# A character outside the BMP before the finding: 1 code point, 2 UTF-16 units.
WIDE = BROADCAST_SUM.replace("return (e != 0)", 'return ("\U0001F600", (e != 0)').replace(
    ".sum()\n", ".sum())\n")

FLOAT_MEAN = '''import torch


def average(x, n):
    e = x.expand(n, -1)
    return (e * 2).mean()
'''

CLEAN = "import torch\n\n\ndef fresh(n):\n    return torch.zeros(n).sum()\n"


def utf16_offset(text: str, position: types.Position) -> int:
    """The character offset of an LSP position (UTF-16 units), computed here independently."""
    lines = text.split("\n")
    offset = sum(len(line) + 1 for line in lines[: position.line])
    units = 0
    for index, char in enumerate(lines[position.line]):
        if units >= position.character:
            return offset + index
        units += 2 if ord(char) > 0xFFFF else 1
    return offset + len(lines[position.line])


def apply(text: str, edits) -> str:
    spans = sorted(((utf16_offset(text, e.range.start), utf16_offset(text, e.range.end), e.new_text)
                    for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def engine_findings(text: str, root: Path):
    return lint_text(SourceText(text), Config(root=root, source=None), root / "mod.py").findings


class Session:
    """One server process and the messages it sent."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.client = LanguageClient("stridelint-tests", "1")
        self.diagnostics: asyncio.Queue = asyncio.Queue()
        self.messages: list[types.ShowMessageParams] = []
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics.put_nowait(params)

        @self.client.feature(types.WINDOW_SHOW_MESSAGE)
        def on_message(params: types.ShowMessageParams) -> None:
            self.messages.append(params)

    async def __aenter__(self) -> Session:
        await self.client.start_io(sys.executable, "-m", "stridelint", "server", cwd=self.root)
        result = await asyncio.wait_for(self.client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=self.root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=self.root.as_uri(), name="ws")],
        )), TIMEOUT)  # fmt: skip
        self.capabilities = result.capabilities
        self.client.initialized(types.InitializedParams())
        return self

    async def __aexit__(self, *exc) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
        self.client.exit(None)
        await self.client.stop()

    def uri(self, name: str) -> str:
        return (self.root / name).as_uri()

    async def published(self, uri: str) -> types.PublishDiagnosticsParams:
        while True:
            params = await asyncio.wait_for(self.diagnostics.get(), TIMEOUT)
            if params.uri == uri and params.version == self.versions.get(uri):
                return params

    async def open(self, name: str, text: str) -> list[types.Diagnostic]:
        uri = self.uri(name)
        (self.root / name).write_text(text)
        self.versions[uri], self.texts[uri] = 1, text
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1,
                                                 text=text)))
        return list((await self.published(uri)).diagnostics)

    async def change(self, name: str, text: str) -> list[types.Diagnostic]:
        uri = self.uri(name)
        self.versions[uri] += 1
        self.texts[uri] = text
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri,
                                                                version=self.versions[uri]),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        return list((await self.published(uri)).diagnostics)

    async def actions(self, name: str, diagnostics, only=None) -> list[types.CodeAction]:
        uri = self.uri(name)
        whole = types.Range(start=types.Position(0, 0), end=types.Position(0, 0))
        target = diagnostics[0].range if diagnostics else whole
        result = await asyncio.wait_for(self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri), range=target,
                context=types.CodeActionContext(diagnostics=list(diagnostics), only=only))),
            TIMEOUT)  # fmt: skip
        return list(result or [])

    def applied(self, name: str, action: types.CodeAction) -> str:
        uri = self.uri(name)
        assert action.edit is not None and set(action.edit.changes) == {uri}
        return apply(self.texts[uri], action.edit.changes[uri])


def run(coroutine) -> None:
    asyncio.run(coroutine)


def test_diagnostic_quick_fix_and_noqa_for_a_broadcast_sum(tmp_path):
    async def scenario():
        async with Session(tmp_path) as session:
            kinds = session.capabilities.code_action_provider.code_action_kinds
            assert set(kinds) == {"quickfix", "source.fixAll.stridelint"}
            (diag,) = await session.open("mod.py", BROADCAST_SUM)
            assert (diag.code, diag.source) == ("SL101", "stridelint")
            assert diag.code_description.href.endswith("/SL101")
            row = BROADCAST_SUM.splitlines().index("    return (e != 0).sum()")
            start = BROADCAST_SUM.splitlines()[row].index("e != 0")
            assert (diag.range.start.line, diag.range.start.character) == (row, start)
            (why,) = diag.related_information
            assert why.location.range.start.line == row - 1 and "expand" in why.message

            actions = await session.actions("mod.py", [diag])
            assert [a.kind for a in actions] == ["quickfix", "quickfix", "source.fixAll.stridelint"]
            fix, noqa, _ = actions
            assert fix.kind == "quickfix" and fix.is_preferred and "unsafe" not in fix.title
            assert list(fix.diagnostics) == [diag]
            (finding,) = engine_findings(BROADCAST_SUM, tmp_path)
            fixed = session.applied("mod.py", fix)
            suppressed = session.applied("mod.py", noqa)
            assert fixed == apply_edits(BROADCAST_SUM, list(finding.fix.edits))
            assert "e_small = e[" in fixed and "(e != 0)" not in fixed
            assert await session.change("mod.py", fixed) == []

            assert suppressed.splitlines()[row] == "    return (e != 0).sum()  # noqa: SL101"
            assert suppressed.replace("  # noqa: SL101", "") == BROADCAST_SUM
            assert await session.change("mod.py", suppressed) == []
            # Back to the finding, then clean code: the diagnostics follow every change.
            assert [d.code for d in await session.change("mod.py", BROADCAST_SUM)] == ["SL101"]
            assert await session.change("mod.py", CLEAN) == []

    run(scenario())


def test_positions_count_utf16_units_and_edits_land_right(tmp_path):
    async def scenario():
        async with Session(tmp_path) as session:
            (diag,) = await session.open("wide.py", WIDE)
            line = WIDE.splitlines()[diag.range.start.line]
            code_points = line.index("e != 0")
            assert diag.range.start.character == code_points + 1  # the emoji is two units
            fix = (await session.actions("wide.py", [diag]))[0]
            (finding,) = engine_findings(WIDE, tmp_path)
            assert session.applied("wide.py", fix) == apply_edits(WIDE, list(finding.fix.edits))

    run(scenario())


def test_unsafe_fixes_are_offered_but_marked(tmp_path):
    async def scenario():
        async with Session(tmp_path) as session:
            diagnostics = await session.open("mean.py", FLOAT_MEAN)
            (finding,) = engine_findings(FLOAT_MEAN, tmp_path)
            assert finding.fix is not None and finding.fix.applicability.value == "unsafe"
            fix = (await session.actions("mean.py", diagnostics))[0]
            assert "unsafe" in fix.title.lower() and not fix.is_preferred
            # `check --fix` leaves unsafe fixes alone, and so does "fix all".
            assert await session.actions("mean.py", diagnostics, only=["source.fixAll"]) == []

    run(scenario())


def test_fix_all_applies_what_check_fix_would(tmp_path):
    other = "\n\ndef other(y, m):\n    f = y.expand(m, -1)\n    return (f > 0).sum()\n"
    text = BROADCAST_SUM + other

    async def scenario():
        async with Session(tmp_path) as session:
            diagnostics = await session.open("two.py", text)
            assert len(diagnostics) == 2
            (action,) = await session.actions("two.py", [], only=["source.fixAll"])
            assert action.kind == "source.fixAll.stridelint"
            expected = fix_text(SourceText(text), Config(root=tmp_path, source=None),
                                tmp_path / "two.py", unsafe=False)
            assert expected.fixed_count == 2
            assert session.applied("two.py", action) == expected.text
            # Asking only for quick fixes leaves the source action out.
            quick = await session.actions("two.py", diagnostics[:1], only=["quickfix"])
            assert quick and all(a.kind == "quickfix" for a in quick)

    run(scenario())


def test_settings_come_from_the_workspace_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.stridelint]\nunsafe-fixes = true\nper-file-ignores = { "quiet.py" = ["SL101"] }\n')

    async def scenario():
        async with Session(tmp_path) as session:
            assert await session.open("quiet.py", BROADCAST_SUM) == []
            diagnostics = await session.open("mean.py", FLOAT_MEAN)
            (action,) = await session.actions("mean.py", [], only=["source"])
            assert action.title == "stridelint: Apply all fixes (1)"
            assert "(e_small * 2).mean()" in session.applied("mean.py", action)
            assert diagnostics

    run(scenario())


def test_a_bad_setting_is_shown_once_and_nothing_is_reported(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.stridelint]\nscope = "everywhere"\n')

    async def scenario():
        async with Session(tmp_path) as session:
            assert await session.open("mod.py", BROADCAST_SUM) == []
            assert await session.change("mod.py", BROADCAST_SUM + "\n") == []
            errors = [m for m in session.messages if m.type == types.MessageType.Error]
            assert len(errors) == 1 and "scope" in errors[0].message
            (tmp_path / "pyproject.toml").write_text('[tool.stridelint]\nscope = "all"\n')
            assert [d.code for d in await session.change("mod.py", BROADCAST_SUM)] == ["SL101"]

    run(scenario())


def test_without_pygls_the_server_says_what_to_install(tmp_path):
    import subprocess

    blocked = "import sys; sys.modules['pygls'] = None; sys.argv = ['stridelint', 'server']; " \
              "from stridelint.cli import main; main()"  # fmt: skip
    result = subprocess.run([sys.executable, "-c", blocked], cwd=tmp_path, capture_output=True,
                            text=True, stdin=subprocess.DEVNULL)
    assert result.returncode == 2
    assert result.stderr == ("stridelint: error: stridelint server needs pygls: "
                             "pip install 'stridelint[lsp]' (or pip install pygls)\n")
