"""Numbers for bench/load.py: percentiles, Prometheus histograms read back, /proc samples.

Histogram quantiles are computed the way Prometheus' ``histogram_quantile`` does: from the
difference of two scrapes' cumulative bucket counts, linear inside the bucket that holds the
rank (so a quantile is never more precise than its bucket bounds).
"""

from __future__ import annotations

import contextlib
import os
import time
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024


def percentile(ordered: Sequence[float], p: float) -> float:
    """Nearest-rank percentile of an already sorted sequence (nan when empty)."""
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]


def summary(samples: Iterable[float]) -> dict[str, float]:
    """count, p50, p95, p99, max and mean of samples (milliseconds in, milliseconds out)."""
    ordered = sorted(samples)
    n = len(ordered)
    return {
        "count": n,
        "p50": percentile(ordered, 50),
        "p95": percentile(ordered, 95),
        "p99": percentile(ordered, 99),
        "max": ordered[-1] if ordered else float("nan"),
        "mean": sum(ordered) / n if n else float("nan"),
    }


# Prometheus histograms ------------------------------------------------------------------

Labels = tuple[tuple[str, str], ...]
#: metric name -> labels (without ``le``) -> (upper bounds, cumulative counts, sum)
Scrape = dict[str, dict[Labels, tuple[list[float], list[float], float]]]


def scrape(url: str, timeout: float = 5.0) -> Scrape:
    """Every histogram of one ``/metrics`` page, and every counter as a histogram of one
    bucket (its count is the counter's value: :func:`histogram_delta` serves both)."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        text = response.read().decode()
    out: Scrape = {}
    for family in text_string_to_metric_families(text):
        if family.type == "counter":
            counters = out.setdefault(family.name, {})
            for sample in family.samples:
                if sample.name.endswith("_total"):
                    labels = tuple(sorted(sample.labels.items()))
                    value = float(sample.value)
                    counters[labels] = ([float("inf")], [value], value)
            continue
        if family.type != "histogram":
            continue
        series: dict[Labels, dict[str, object]] = {}
        for sample in family.samples:
            labels = tuple(sorted((k, v) for k, v in sample.labels.items() if k != "le"))
            entry = series.setdefault(labels, {"buckets": [], "sum": 0.0})
            if sample.name.endswith("_bucket"):
                buckets = entry["buckets"]
                assert isinstance(buckets, list)
                buckets.append((float(sample.labels["le"]), float(sample.value)))
            elif sample.name.endswith("_sum"):
                entry["sum"] = float(sample.value)
        hist = out.setdefault(family.name, {})
        for labels, entry in series.items():
            pairs = entry["buckets"]
            assert isinstance(pairs, list)
            pairs.sort()
            total = entry["sum"]
            assert isinstance(total, float)
            hist[labels] = ([b for b, _ in pairs], [c for _, c in pairs], total)
    return out


@dataclass
class HistogramDelta:
    """One histogram between two scrapes, its matching series added together."""

    bounds: list[float] = field(default_factory=list)
    counts: list[float] = field(default_factory=list)
    total: float = 0.0

    @property
    def count(self) -> float:
        return self.counts[-1] if self.counts else 0.0

    def quantile(self, q: float) -> float:
        """Seconds at quantile ``q`` (0–1), as Prometheus' histogram_quantile estimates it."""
        if not self.counts or self.count <= 0:
            return float("nan")
        rank = q * self.count
        previous_bound, previous_count = 0.0, 0.0
        for bound, cumulative in zip(self.bounds, self.counts, strict=True):
            if cumulative >= rank:
                if bound == float("inf"):
                    return previous_bound  # above the highest finite bucket
                inside = cumulative - previous_count
                share = (rank - previous_count) / inside if inside else 0.0
                return previous_bound + (bound - previous_bound) * share
            previous_bound, previous_count = bound, cumulative
        return previous_bound


def histogram_delta(
    before: Scrape, after: Scrape, name: str, match: Mapping[str, str] | None = None
) -> HistogramDelta:
    """``after - before`` for metric ``name`` (its family name, without ``_bucket``), over every
    series whose labels include ``match``. A series that went down was reset (its process
    restarted between the scrapes): it counts from zero, as Prometheus' ``increase`` does —
    what the new process saw, not what the old one saw before it died. (Subtracted as is, a
    gateway replaced in the window showed negative counts and turns of "1.5 s".)

    >>> before = {"h": {(): ([0.1, float("inf")], [5.0, 9.0], 3.0)}}
    >>> after = {"h": {(): ([0.1, float("inf")], [2.0, 2.0], 0.1)}}
    >>> histogram_delta(before, after, "h").count
    2.0
    """
    wanted = set((match or {}).items())
    delta = HistogramDelta()
    for labels, (bounds, counts, total) in after.get(name, {}).items():
        if not wanted <= set(labels):
            continue
        old = before.get(name, {}).get(labels)
        if old is not None and (
            old[2] > total or any(o > n for o, n in zip(old[1], counts, strict=True))
        ):
            old = None  # reset
        old_counts = old[1] if old else [0.0] * len(counts)
        old_total = old[2] if old else 0.0
        if not delta.bounds:
            delta.bounds = list(bounds)
            delta.counts = [0.0] * len(bounds)
        for i, (new, was) in enumerate(zip(counts, old_counts, strict=True)):
            delta.counts[i] += new - was
        delta.total += total - old_total
    return delta


def label_values(scraped: Scrape, name: str, label: str) -> list[str]:
    return sorted({dict(labels).get(label, "") for labels in scraped.get(name, {})})


# /proc -----------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process (all its threads), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def rss_mib(pid: int) -> float:
    pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    return pages * PAGE_KIB / 1024


def machine_busy() -> tuple[float, float, float]:
    """(busy, total, irq + softirq) jiffies of the whole machine, from /proc/stat. Loopback
    TCP is processed in softirq, which no process is charged for."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    total = sum(values[:8])
    return total - idle, total, values[5] + values[6]


@dataclass
class ProcSample:
    at: float
    cpu: float
    rss: float


@dataclass
class ProcWatch:
    """CPU and RSS samples of named processes over a run."""

    pids: dict[str, int]
    samples: dict[str, list[ProcSample]] = field(default_factory=dict)
    machine: list[tuple[float, float, float, float]] = field(default_factory=list)

    def sample(self) -> None:
        now = time.monotonic()
        busy, total, irq = machine_busy()
        self.machine.append((now, busy, total, irq))
        for name, pid in self.pids.items():
            with contextlib.suppress(FileNotFoundError, ProcessLookupError, IndexError):
                self.samples.setdefault(name, []).append(
                    ProcSample(now, cpu_seconds(pid), rss_mib(pid))
                )

    def window(self, start: float, end: float) -> dict[str, dict[str, float]]:
        """Per process: CPU share of one core, RSS at the start/end/max of [start, end]."""
        out: dict[str, dict[str, float]] = {}
        for name, samples in self.samples.items():
            inside = [s for s in samples if start <= s.at <= end]
            if len(inside) < 2:
                continue
            first, last = inside[0], inside[-1]
            out[name] = {
                "cpu_cores": (last.cpu - first.cpu) / (last.at - first.at),
                "rss_start_mib": first.rss,
                "rss_end_mib": last.rss,
                "rss_max_mib": max(s.rss for s in inside),
            }
        inside_machine = [m for m in self.machine if start <= m[0] <= end]
        if len(inside_machine) >= 2:
            (a0, b0, t0, i0), (a1, b1, t1, i1) = inside_machine[0], inside_machine[-1]
            cores = os.cpu_count() or 1
            busy_cores = (b1 - b0) / CLOCK_TICKS / (a1 - a0)
            irq_cores = (i1 - i0) / CLOCK_TICKS / (a1 - a0)
            ours = sum(p["cpu_cores"] for p in out.values())
            out["machine"] = {
                "busy_share": (b1 - b0) / max(1, t1 - t0),
                "busy_cores": busy_cores,
                "irq_cores": irq_cores,
                # What other processes of the machine took meanwhile (other people's tests...).
                "other_cores": max(0.0, min(cores, busy_cores) - ours - irq_cores),
            }
        return out


def tagged(scrapes: Mapping[str, Scrape], names: Iterable[str], label: str = "replica") -> Scrape:
    """Several services' scrapes as one, each series labelled with its service's name: a
    :func:`histogram_delta` of it adds the replicas up, or matches one of them by ``label``."""
    out: Scrape = {}
    for name in names:
        for metric, series in scrapes.get(name, {}).items():
            into = out.setdefault(metric, {})
            for labels, value in series.items():
                into[tuple(sorted((*labels, (label, name))))] = value
    return out
