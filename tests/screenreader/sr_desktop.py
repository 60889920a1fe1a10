"""A desktop with a real screen reader: Xvfb, a D-Bus session of its own, the AT-SPI bus,
Orca, and Debian's full Chromium (not headless) reading the web client.

What Orca says is read from its debug file (every utterance is a line
``HH:MM:SS.micro - SPEECH OUTPUT: 'text'``); keys go through the X server with ``xdotool``, as a
person's keyboard would send them. The order is ../shared/docs/screen-reader-recipe.md's:
Xvfb, the session bus, ``at-spi-bus-launcher --launch-immediately``, ``orca --replace``,
Chromium with ``--force-renderer-accessibility``. Everything started here runs in a process
group of its own and is stopped by its id (:meth:`Desktop.stop`, also after a failure).

The page's own state (``window.lexio``: the rack, the cursor, the focus) is read through
Chromium's DevTools port, only to decide which keys to press and to check what Orca said:
nothing is ever typed or clicked through it.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexio_common.procs import free_port

#: What the desktop needs, and the Debian package that brings it (``make screenreader``).
NEEDED = {
    "Xvfb": "xvfb",
    "dbus-daemon": "dbus-x11",
    "orca": "orca",
    "speech-dispatcher": "speech-dispatcher",
    "espeak-ng": "espeak-ng",
    "xdotool": "xdotool",
    "setxkbmap": "x11-xkb-utils",
    "chromium": "chromium",
}
AT_SPI_LAUNCHER = Path("/usr/libexec/at-spi-bus-launcher")
SPEECHD_MODULES = Path("/etc/speech-dispatcher/modules")
ORCA = Path("/usr/bin/orca")
ORCA_PYTHON = "/usr/bin/python3"
#: Runs Debian's orca script (argv: the debug file's path, the script, its arguments) with its
#: debug file opened line-buffered, so that each line is in the file as soon as it is written.
ORCA_LINE_BUFFERED = """
import builtins, runpy, sys
debug, plain_open = sys.argv[1], builtins.open
def line_buffered(file, mode="r", *args, **kwargs):
    if str(file) == debug and "w" in mode:
        kwargs["buffering"] = 1
    return plain_open(file, mode, *args, **kwargs)
builtins.open = line_buffered
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
CHROMIUM = os.environ.get("LEXIO_SR_CHROMIUM", "chromium")

# Orca's debug file: one line per utterance. A line may also carry the voice Orca used.
SPEECH_LINE = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d+) - SPEECH OUTPUT: '(.*)'(\{[^{}]*\})?\s*$")
# The lines around it where Orca names the voice or the language it speaks with.
VOICE_LINE = re.compile(r"SD rate .*, language (\S+)")


def missing() -> list[str]:
    """The Debian packages of :data:`NEEDED` whose program is not installed."""
    absent = [pkg for prog, pkg in NEEDED.items() if shutil.which(prog) is None]
    if not AT_SPI_LAUNCHER.is_file():
        absent.append("at-spi2-core")
    if not Path("/usr/lib/speech-dispatcher-modules/sd_espeak-ng").exists():
        absent.append("speech-dispatcher-espeak-ng")
    return sorted(set(absent))


@dataclass(frozen=True)
class Utterance:
    """One thing Orca said: when (seconds since midnight, Orca's clock), and the text."""

    at: float
    text: str
    line: int
    """Its line in Orca's debug file (what came just before it there: the voice, the role)."""

    def __str__(self) -> str:
        return f"{clock(self.at)} {self.text}"


def clock(seconds: float) -> str:
    whole = int(seconds)
    millis = int(seconds % 1 * 1000)
    return f"{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}.{millis:03d}"


def now_of_day() -> float:
    """Seconds since midnight on the local clock, as Orca stamps its lines."""
    moment = dt.datetime.now()
    return moment.hour * 3600 + moment.minute * 60 + moment.second + moment.microsecond / 1e6


class OrcaLog:
    """Orca's debug file, read as it grows: its utterances and, around them, its other lines."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines: list[str] = []
        self.said: list[Utterance] = []
        self._offset = 0
        self._partial = ""

    def read(self) -> list[Utterance]:
        """Every utterance so far (new lines read first)."""
        if self.path.exists():
            with self.path.open("rb") as file:
                file.seek(self._offset)
                chunk = file.read()
            self._offset += len(chunk)
            text = self._partial + chunk.decode("utf-8", errors="replace")
            *complete, self._partial = text.split("\n")
            for line in complete:
                self.lines.append(line)
                match = SPEECH_LINE.match(line)
                if match:
                    hours, minutes, seconds, fraction, said, _voice = match.groups()
                    at = int(hours) * 3600 + int(minutes) * 60 + int(seconds)
                    at += int(fraction) / 10 ** len(fraction)
                    self.said.append(Utterance(at, said, len(self.lines) - 1))
        return self.said

    def context(self, utterance: Utterance, before: int = 6) -> list[str]:
        """Orca's lines just before an utterance (where it says which voice it used)."""
        return self.lines[max(0, utterance.line - before) : utterance.line + 1]


class ScreenReaderTimeoutError(AssertionError):
    pass


@dataclass
class Desktop:
    """The chain of processes, started in order by :meth:`start`, stopped by :meth:`stop`."""

    root: Path
    voice: str = "fr_FR"
    """The reader's language, as its user set it up (Orca's voice follows the locale of its
    process: ``fr_FR``, ``ar_MA``); Orca 43 does not switch voices on ``lang``."""
    width: int = 1280
    height: int = 900
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    display: str = ""
    debug_port: int = 0
    transcript: list[tuple[float, str]] = field(default_factory=list)
    """Keys pressed and notes, with their time of day (merged with Orca's lines on writing)."""
    orca: OrcaLog | None = None
    sockets: Path = Path("/nonexistent")

    # Starting --------------------------------------------------------------------------

    def start(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        # Sockets live in a short directory of their own (a Unix socket's path has at most
        # 107 bytes; a test's temporary directory can be longer).
        self.sockets = Path(tempfile.mkdtemp(prefix="lexio-sr-"))
        home = self.root / "home"
        for sub in ("config", "data", "cache"):
            (home / sub).mkdir(parents=True, exist_ok=True)
        keep = ("PATH", "LANG", "LC_ALL", "TZ")
        self.env = {k: v for k, v in os.environ.items() if k in keep}
        self.env |= {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_RUNTIME_DIR": str(self.sockets),
            "LANG": os.environ.get("LANG", "C.UTF-8"),
            "GTK_A11Y": "atspi",
            "NO_AT_BRIDGE": "0",
        }
        self._start_x()
        self._start_bus()
        self._spawn(
            "at-spi",
            [str(AT_SPI_LAUNCHER), "--launch-immediately"],
        )
        self._wait(self._a11y_bus_up, 20, "the AT-SPI bus (org.a11y.Bus) to be registered")
        self._start_speech()
        self._start_orca()

    def _spawn(self, name: str, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        log = (self.root / f"{name}.log").open("ab")
        process = subprocess.Popen(
            list(argv),
            env=kwargs.pop("env", self.env),
            stdin=subprocess.DEVNULL,
            stdout=kwargs.pop("stdout", log),
            stderr=log,
            start_new_session=True,
            **kwargs,
        )
        self.processes[name] = process
        return process

    def _wait(self, condition: Callable[[], object], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            for name, process in self.processes.items():
                if process.poll() is not None and name not in ("bus-launch",):
                    raise AssertionError(
                        f"{name} exited ({process.returncode}) waiting for {what}:\n"
                        + self.log_tail(name)
                    )
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} after {timeout} s")
            time.sleep(0.05)

    def log_tail(self, name: str, size: int = 3000) -> str:
        path = self.root / f"{name}.log"
        return path.read_text(errors="replace")[-size:] if path.exists() else ""

    def _start_x(self) -> None:
        read, write = os.pipe()
        try:
            self._spawn(
                "xvfb",
                [
                    "Xvfb",
                    "-displayfd",
                    str(write),
                    "-screen",
                    "0",
                    f"{self.width}x{self.height}x24",
                    "-nolisten",
                    "tcp",
                    "-noreset",
                ],
                pass_fds=(write,),
            )
            os.close(write)
            write = -1
            number = b""
            deadline = time.monotonic() + 20
            while not number.endswith(b"\n"):
                chunk = os.read(read, 16)
                if not chunk or time.monotonic() > deadline:
                    raise AssertionError("Xvfb gave no display:\n" + self.log_tail("xvfb"))
                number += chunk
        finally:
            os.close(read)
            if write >= 0:
                os.close(write)
        self.display = f":{int(number)}"
        self.env["DISPLAY"] = self.display

    def _start_bus(self) -> None:
        """A session bus of its own (what ``dbus-launch`` starts), stopped by its pid."""
        address = f"unix:path={self.sockets / 'bus'}"
        self._spawn(
            "dbus",
            ["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address={address}"],
        )
        self.env["DBUS_SESSION_BUS_ADDRESS"] = address
        self._wait((self.sockets / "bus").exists, 20, "session bus socket")

    def _a11y_bus_up(self) -> bool:
        """Whether the launcher owns org.a11y.Bus (asked without activating it: a GetAddress
        would start a second launcher through D-Bus activation)."""
        reply = subprocess.run(
            [
                "dbus-send",
                "--session",
                "--print-reply",
                "--dest=org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus.NameHasOwner",
                "string:org.a11y.Bus",
            ],
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
            timeout=10,
        )
        return "boolean true" in reply.stdout

    def _start_speech(self) -> None:
        """speech-dispatcher on espeak-ng, in the foreground, on the socket Orca looks for
        (so that Orca does not spawn one of its own, detached). There is no sound card: its
        audio goes to ALSA's null device (playing into nothing, a sound card's pace; with no
        device at all, a speech request never returned and Orca hung on it)."""
        home = Path(self.env["HOME"])
        (home / ".asoundrc").write_text("pcm.!default { type null }\n")
        config = self.root / "speechd"
        (config / "modules").mkdir(parents=True, exist_ok=True)
        shutil.copy(SPEECHD_MODULES / "espeak-ng.conf", config / "modules" / "espeak-ng.conf")
        (config / "speechd.conf").write_text(
            "LogLevel 3\n"
            'AudioOutputMethod "alsa"\n'
            'AddModule "espeak-ng" "sd_espeak-ng" "espeak-ng.conf"\n'
            'DefaultModule "espeak-ng"\n'
        )
        runtime = self.sockets / "speech-dispatcher"
        (runtime / "log").mkdir(parents=True, exist_ok=True)
        socket = runtime / "speechd.sock"
        self._spawn(
            "speech-dispatcher",
            [
                "speech-dispatcher",
                "--run-single",
                "--communication-method",
                "unix_socket",
                "--socket-path",
                str(socket),
                "--timeout",
                "0",
                "--config-dir",
                str(config),
                "--log-dir",
                str(runtime / "log"),
                "--pid-file",
                str(runtime / "pid"),
            ],
        )
        self.env["SPEECHD_ADDRESS"] = f"unix_socket:{socket}"
        self._wait(socket.exists, 20, "speech-dispatcher's socket")

    def _strays(self) -> list[int]:
        """Processes started for this desktop outside its process groups (speech-dispatcher,
        which Orca spawns detached): those whose command line names this desktop's own
        directory (its socket path), found by their id in /proc."""
        mine = (str(self.root), str(self.sockets))
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if any(path in command for path in mine):
                found.append(int(entry.name))
        return found

    def _start_orca(self) -> None:
        """Orca (Debian's /usr/bin/orca, unchanged), its debug file opened line-buffered: Orca
        opens it as a plain file, which Python writes 8 KB at a time, so that the last things
        said stayed in Orca's buffer until more came. :data:`ORCA_LINE_BUFFERED` runs the same
        script with only that open changed."""
        debug = self.root / "orca-debug.txt"
        self.orca = OrcaLog(debug)
        # The locale's name is enough (Python reads it from the environment): Orca then asks
        # speech-dispatcher for that language, and speaks its own words in it.
        env = {k: v for k, v in self.env.items() if k not in ("LC_ALL", "LC_CTYPE")}
        env |= {
            "LANG": f"{self.voice}.UTF-8",
            "LANGUAGE": self.voice.split("_")[0],
            # The locale need not be installed; Python must not then replace it by C.UTF-8.
            "PYTHONCOERCECLOCALE": "0",
        }
        self._spawn(
            "orca",
            [
                ORCA_PYTHON,
                "-c",
                ORCA_LINE_BUFFERED,
                str(debug),
                str(ORCA),
                "--replace",
                f"--debug-file={debug}",
            ],
            env=env,
        )
        # Ready once it has said so; before, it has not yet told the AT-SPI bus that a screen
        # reader runs, and a Chromium started then never connects to it.
        self._wait(self.said, 60, "Orca's first words (Screen reader on.)")

    def open(self, url: str, lang: str = "fr") -> None:
        """Chromium at ``url``, a fresh profile, renderer accessibility on, translation off."""
        self.debug_port = free_port()
        profile = self.root / "chromium-profile"
        # A fresh profile that never offers to translate (its alert would be read).
        (profile / "Default").mkdir(parents=True, exist_ok=True)
        (profile / "Default" / "Preferences").write_text(
            json.dumps(
                {"translate": {"enabled": False}, "browser": {"check_default_browser": False}}
            )
        )
        self._spawn(
            "chromium",
            [
                CHROMIUM,
                "--no-sandbox",
                "--force-renderer-accessibility",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-features=Translate,MediaRouter",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-gpu",
                "--password-store=basic",
                f"--lang={lang}",
                f"--user-data-dir={profile}",
                f"--remote-debugging-port={self.debug_port}",
                "--window-position=0,0",
                f"--window-size={self.width},{self.height}",
                url,
            ],
        )
        self.note(f"Chromium opens {url}")
        self._wait(self._chromium_window, 60, "Chromium's window")
        window = self._chromium_window()
        subprocess.run(
            ["xdotool", "mousemove", str(self.width // 2), str(self.height // 2)],
            env=self.env,
            check=True,
        )
        subprocess.run(
            ["xdotool", "windowfocus", "--sync", window], env=self.env, check=False, timeout=10
        )

    def _chromium_window(self) -> str:
        found = subprocess.run(
            ["xdotool", "search", "--onlyvisible", "--class", "chromium"],
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        )
        windows = found.stdout.split()
        return windows[-1] if windows else ""

    # Stopping --------------------------------------------------------------------------

    def stop(self) -> None:
        """SIGTERM to each process group started here, last started first; SIGKILL after 5 s;
        then speech-dispatcher (which Orca spawned, detached) by its pid file."""
        for name in reversed(list(self.processes)):
            process = self.processes[name]
            if process.poll() is None:
                with _Gone():
                    os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    with _Gone():
                        os.killpg(process.pid, signal.SIGKILL)
                    process.wait(timeout=5)
            else:
                # Its children (speech-dispatcher's module, Chromium's renderers) may outlive it.
                with _Gone():
                    os.killpg(process.pid, signal.SIGKILL)
        for pid in self._strays():
            if pid != os.getpid():
                with _Gone():
                    os.kill(pid, signal.SIGKILL)
        if self.sockets.name.startswith("lexio-sr-"):
            shutil.rmtree(self.sockets, ignore_errors=True)

    # Keys ------------------------------------------------------------------------------

    def key(self, *keys: str) -> None:
        """Keys as the X server sends them (``xdotool key``: ``Tab``, ``shift+Tab``, ``Return``,
        ``question``, ``a``), one after another."""
        for key in keys:
            self.note(f"KEY {key}")
            subprocess.run(
                ["xdotool", "key", "--clearmodifiers", key], env=self.env, check=True, timeout=10
            )

    def type(self, text: str) -> None:
        """Characters typed (``xdotool type``: an Arabic letter as an Arabic layout sends it)."""
        self.note(f"TYPE {text}")
        subprocess.run(
            ["xdotool", "type", "--delay", "60", text], env=self.env, check=True, timeout=30
        )

    def layout(self, name: str) -> None:
        """The keyboard's layout (``setxkbmap``): ``ara`` to type Arabic letters, as a person
        switches layouts; ``us`` back."""
        self.note(f"LAYOUT {name}")
        subprocess.run(["setxkbmap", "-layout", name], env=self.env, check=True, timeout=10)

    def note(self, text: str) -> None:
        self.transcript.append((now_of_day(), text))

    # Hearing ---------------------------------------------------------------------------

    def said(self) -> list[Utterance]:
        assert self.orca is not None
        return self.orca.read()

    def mark(self) -> int:
        """Where "from now on" starts in :meth:`said`."""
        return len(self.said())

    def hear(
        self,
        wanted: str | re.Pattern[str] | Callable[[str], bool],
        *,
        since: int = 0,
        timeout: float = 15.0,
        what: str = "",
    ) -> Utterance:
        """The first utterance from index ``since`` on that contains ``wanted`` (a string), or
        matches it (a pattern), or satisfies it (a predicate): waited for, polled every 50 ms.
        On timeout the error says what Orca said last."""
        match = _matcher(wanted)
        deadline = time.monotonic() + timeout
        while True:
            said = self.said()
            for utterance in said[since:]:
                if match(utterance.text):
                    return utterance
            if time.monotonic() > deadline:
                last = "\n  ".join(str(u) for u in said[-12:]) or "(nothing)"
                raise ScreenReaderTimeoutError(
                    f"Orca never said {what or wanted!r} in {timeout} s (from utterance "
                    f"{since}); what it said last:\n  {last}"
                )
            time.sleep(0.05)

    def hear_in_order(
        self, wanted: Sequence[str | re.Pattern[str]], *, since: int = 0, timeout: float = 15.0
    ) -> list[Utterance]:
        """Each of ``wanted`` heard, each after the one before (later in the same utterance,
        or in a later one); the utterances they were heard in."""
        found: list[Utterance] = []
        index, offset = since, 0
        for item in wanted:
            pattern = item if isinstance(item, re.Pattern) else re.compile(re.escape(item))
            start_index, start_offset = index, offset

            def after(text: str, pattern: re.Pattern[str] = pattern) -> bool:
                return pattern.search(text) is not None

            deadline = time.monotonic() + timeout
            while True:
                said = self.said()
                hit = None
                for i in range(start_index, len(said)):
                    at = start_offset if i == start_index else 0
                    match = pattern.search(said[i].text, at)
                    if match:
                        hit = (i, match.end())
                        break
                if hit is not None:
                    index, offset = hit
                    found.append(said[index])
                    break
                if time.monotonic() > deadline:
                    self.hear(after, since=len(said), timeout=0, what=pattern.pattern)
                time.sleep(0.05)
        return found

    def quiet(self, seconds: float = 0.6, timeout: float = 10.0) -> None:
        """Until Orca has said nothing new for ``seconds`` (a person waits for the reader to
        finish before the next key). A condition on the log, with a bound."""
        deadline = time.monotonic() + timeout
        count = len(self.said())
        last_change = time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.05)
            now = len(self.said())
            if now != count:
                count, last_change = now, time.monotonic()
            elif time.monotonic() - last_change >= seconds:
                return

    def voice_of(self, utterance: Utterance) -> str:
        """The language Orca asked speech-dispatcher for, as its log says just after the
        utterance (``SD rate 2, pitch 10, volume 100, language fr``), or "" if it says none."""
        assert self.orca is not None
        for line in self.orca.lines[utterance.line + 1 : utterance.line + 8]:
            found = VOICE_LINE.search(line)
            if found:
                return found.group(1)
        return ""

    def in_focus_mode(self) -> bool:
        """Whether Orca is in focus mode (keys go to the page) rather than browse mode (single
        letters are its own navigation keys), as its log last said."""
        self.said()
        assert self.orca is not None
        for line in reversed(self.orca.lines):
            if "_inFocusMode:" in line:
                return line.rstrip().endswith("True")
        return False

    def write_transcript(self, path: Path) -> str:
        """Orca's utterances and the keys pressed, in time order, to ``path``; the text."""
        events = [(u.at, f"ORCA  [{self.voice_of(u) or '?'}] {u.text}") for u in self.said()]
        events += [(at, f"----  {text}") for at, text in self.transcript]
        events.sort(key=lambda e: e[0])
        start = events[0][0] if events else 0.0
        text = "".join(f"{at - start:8.2f}  {what}\n" for at, what in events)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return text


def _matcher(wanted: str | re.Pattern[str] | Callable[[str], bool]) -> Callable[[str], bool]:
    if isinstance(wanted, str):
        return lambda text: wanted in text
    if isinstance(wanted, re.Pattern):
        return lambda text: wanted.search(text) is not None
    return wanted


class _Gone:
    """Ignore a process that has already gone."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, value: object, trace: object) -> bool:
        return isinstance(value, ProcessLookupError | PermissionError)
