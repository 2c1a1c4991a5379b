"""The pygls server: keeps each open document's findings fresh and answers code actions.

Settings come from the configuration nearest to each document (`[tool.stridelint]` in a
`pyproject.toml`, or `stridelint.toml`), read again on every lint so an edit to it applies at
the next keystroke; a mistake in it is shown once as an error message and the document gets no
diagnostics until it is fixed. Documents the configuration excludes get none either.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from stridelint import __version__
from stridelint.lsp import actions
from stridelint.lsp.convert import Positions, diagnostic


@dataclasses.dataclass
class Linted:
    """One document version's findings, and what they were computed from."""

    version: int | None
    text: str
    findings: list
    config: object
    path: Path | None


class StridelintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("stridelint", __version__)
        self.linted: dict[str, Linted] = {}
        self.config_error: str | None = None

    def config_for(self, path: Path | None):
        from stridelint.config import ConfigError, load_config

        start = path.parent if path is not None else Path(self.workspace.root_path or ".")
        try:
            config = load_config(start)
        except ConfigError as error:
            message = f"stridelint: {error}"
            if message != self.config_error:  # once, not at every keystroke
                self.config_error = message
                self.window_show_message(
                    types.ShowMessageParams(type=types.MessageType.Error, message=message))
            return None
        self.config_error = None
        return config

    def lint(self, uri: str) -> Linted:
        from stridelint.discovery import is_excluded
        from stridelint.engine import lint_text
        from stridelint.source import SourceText

        document = self.workspace.get_text_document(uri)
        cached = self.linted.get(uri)
        current = (document.version, document.source)
        if cached is not None and (cached.version, cached.text) == current:
            return cached
        path = Path(document.path) if document.path else None
        config = self.config_for(path)
        findings = []
        if config is not None and not (path is not None and is_excluded(path, config)):
            result = lint_text(SourceText(document.source), config, path)
            findings = result.findings
            for message in result.internal_errors:
                self.window_log_message(types.LogMessageParams(
                    type=types.MessageType.Error, message=f"stridelint: {uri}: {message}"))
        linted = Linted(document.version, document.source, findings, config, path)
        self.linted[uri] = linted
        return linted

    def diagnostics(self, uri: str, linted: Linted) -> list[types.Diagnostic]:
        from stridelint.rules import RULES_BY_CODE

        positions = Positions(linted.text, self.workspace.position_codec)
        return [diagnostic(f, uri, positions, RULES_BY_CODE) for f in linted.findings]

    def publish(self, uri: str) -> None:
        linted = self.lint(uri)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, diagnostics=self.diagnostics(uri, linted), version=linted.version))


def _same(a: types.Diagnostic, b: types.Diagnostic) -> bool:
    return a.source == b.source and str(a.code) == str(b.code) and a.range == b.range


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return p.line, p.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def code_actions(ls: StridelintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    linted = ls.lint(uri)
    if linted.config is None or not linted.findings:
        return []
    positions = Positions(linted.text, ls.workspace.position_codec)
    only = params.context.only
    found: list[types.CodeAction] = []
    if actions.wanted(actions.QUICK_FIX_KIND, only):
        asked = [d for d in params.context.diagnostics if d.source == "stridelint"]
        for finding, diag in zip(linted.findings, ls.diagnostics(uri, linted)):
            # The diagnostics the client sent, or, without any of ours, the range it asked on.
            if any(_same(diag, d) for d in asked) if asked else _overlaps(diag.range, params.range):
                for make in (actions.quick_fix, actions.noqa_fix):
                    action = make(finding, uri, positions, diag)
                    if action is not None:
                        found.append(action)
    if actions.wanted(actions.FIX_ALL_KIND, only):
        from stridelint.engine import fix_text
        from stridelint.source import SourceText

        unsafe = linted.config.unsafe_fixes
        outcome = fix_text(SourceText(linted.text), linted.config, linted.path, unsafe)
        action = actions.fix_all(outcome.text, outcome.fixed_count, unsafe, uri, positions)
        if action is not None:
            found.append(action)
    return found


def build_server() -> StridelintServer:
    server = StridelintServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: StridelintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: StridelintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: StridelintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.linted.pop(params.text_document.uri, None)  # the configuration may have changed too
        ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: StridelintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.linted.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=list(actions.KINDS)),
    )(code_actions)
    return server
