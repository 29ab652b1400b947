"""The judge API's Prometheus metrics: this process's counters, and the cluster's figures read from Redis
at each scrape (queue depth, workers, tests/s, verdict and outcome counts)."""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.process_collector import ProcessCollector

from services.judge.queue import fair
from services.judge.queue.batches import RATE_WINDOW_S, Keys, cluster_figures
from services.judge.queue.connection import Redis, RedisError
from services.settings import Settings

# how a run carried to its client's retry ended (services/judge/queue/carry.py)
CARRIED_ENDINGS = ("reused", "unclaimed", "stopped")


class Metrics:
    """This API process's counters and histograms, plus cluster-wide figures read from Redis at scrape
    (`conn`, under `settings`' prefix; `n_workers` counts the worker loops alive)."""

    def __init__(self, settings: Settings, conn: Redis, n_workers: Callable[[], int]):
        self.registry = CollectorRegistry()
        r = self.registry
        self.submissions = Counter(
            "frontier_judge_submissions", "Submissions accepted by this API process.", registry=r
        )
        self.distinct = Counter(
            "frontier_judge_distinct_submissions",
            "Distinct (code, language, problem) units among them: what the workers judge.",
            registry=r,
        )
        self.batches = Counter(
            "frontier_judge_batches", "Batches accepted, by endpoint.", ["endpoint"], registry=r
        )
        self.loop_lag = Gauge(
            "frontier_judge_event_loop_lag_seconds",
            "How late this API process's event loop ran at worst over the last 30 s; deadlines are "
            "answered that much earlier (docs/spec.md 6.7).",
            registry=r,
        )
        self.rejected = Counter(
            "frontier_judge_rejected", "Requests refused, by reason.", ["reason"], registry=r
        )
        self.batch_seconds = Histogram(
            "frontier_judge_batch_seconds",
            "POST /judge latency, request to answer.",
            buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600),
            registry=r,
        )
        self.request_seconds = Histogram(
            "frontier_judge_http_request_seconds",
            "HTTP request latency by route.",
            ["method", "route", "status"],
            buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300),
            registry=r,
        )
        self.clients = Counter(
            "frontier_judge_client_requests",
            "HTTP requests by client (its token's name in FRONTIER_API_TOKENS; 'default' for "
            "FRONTIER_API_TOKEN, 'anonymous' without tokens, 'unauthenticated' when refused) and status.",
            ["client", "code"],
            registry=r,
        )
        self.deadlines = Counter(
            "frontier_judge_deadline_events",
            "Requests answered 504 at their deadline (deadline), refused as already too late (too_late), "
            "or whose caller went away (caller_gone), answered 504 at once as the start rule did not "
            "start them (no_time), or run answered 504 after FRONTIER_JUDGE_WAIT_S and stopped (wait), "
            "by endpoint (docs/spec.md 6.7).",
            ["endpoint", "event"],
            registry=r,
        )
        ProcessCollector(registry=r)
        r.register(_ClusterCollector(settings, conn, n_workers))


class _ClusterCollector:
    """Queue depth, worker count, tests/s and verdict counts of the whole cluster, from Redis."""

    def __init__(self, settings: Settings, conn: Redis, n_workers: Callable[[], int]):
        self.settings, self.conn, self.n_workers = settings, conn, n_workers
        self.keys = Keys(settings.redis_prefix)

    def collect(self):
        up = GaugeMetricFamily("frontier_judge_redis_up", "1 when Redis answered this scrape.")
        try:
            figures = self._read()
        except RedisError:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from figures

    def _read(self) -> list:
        s = self
        conn = s.conn
        jobs, queued, stats, starved, rates = cluster_figures(conn, s.settings)
        waiting = fair.waiting(conn, s.settings)
        out = []
        g = GaugeMetricFamily(
            "frontier_judge_queue_jobs", "Jobs waiting: in the RQ queue and in the clients' fair queues."
        )
        g.add_metric([], jobs + sum(waiting.values()))
        out.append(g)
        g = GaugeMetricFamily(
            "frontier_judge_client_queue_depth",
            "A client's distinct submissions accepted and not yet judged (FRONTIER_MAX_CLIENT_QUEUE_DEPTH).",
            labels=["client"],
        )
        for client, depth in fair.depths(conn, s.settings).items():
            g.add_metric([client], depth)
        out.append(g)
        g = GaugeMetricFamily(
            "frontier_judge_queue_depth",
            "Distinct submissions accepted and not yet judged (429 past the limit).",
        )
        g.add_metric([], int(queued or 0))
        out.append(g)
        g = GaugeMetricFamily(
            "frontier_judge_workers", "Judge worker loops alive now (one per sandbox slot)."
        )
        g.add_metric([], s.n_workers())
        out.append(g)
        g = GaugeMetricFamily(
            "frontier_judge_tests_per_second", f"Tests run per second over the last {RATE_WINDOW_S} s."
        )
        g.add_metric([], sum(int(x or 0) for x in rates) / RATE_WINDOW_S)
        out.append(g)
        g = GaugeMetricFamily(
            "frontier_judge_oversubscribed",
            "1 for 300 s after a worker saw its host starve a run (docs/spec.md 4.1).",
        )
        g.add_metric([], 1 if starved else 0)
        out.append(g)
        # the workers' plain counters: (name, stats field, help); a field ending in _ms counts seconds
        for name, field, doc in (
            (
                "frontier_judge_starved_runs",
                "starved_runs",
                "Runs the host kept waiting for a CPU at their wall limit: each run again, or, starved twice, answered judge_error (docs/spec.md 4.1).",
            ),
            ("frontier_judge_judged", "judged", "Distinct submissions judged by the workers."),
            ("frontier_judge_tests", "tests", "Tests run by the workers (not counting SKIPPED)."),
            ("frontier_judge_slot_seconds", "slot_ms", "Slot time the workers spent on units and runs."),
            (
                "frontier_judge_abandoned_slot_seconds",
                "abandoned_slot_ms",
                "Slot time spent on units and runs stopped because their caller left or their deadline passed (docs/spec.md 6.7; the target is 0).",
            ),
            (
                "frontier_judge_after_stop_slot_seconds",
                "after_stop_slot_ms",
                "Of that, slot time from the stop to the slot's release (the sandbox's reaction time).",
            ),
            (
                "frontier_judge_fanout_borrowed",
                "fanout_borrowed",
                "Idle slots a submission's tests fanned out to (docs/spec.md 4.10).",
            ),
            (
                "frontier_judge_fanout_slot_seconds",
                "fanout_slot_ms",
                "Slot time of the slots borrowed by fan-out (part of frontier_judge_slot_seconds).",
            ),
            (
                "frontier_judge_fanout_discarded_slot_seconds",
                "fanout_discarded_ms",
                "Slot time of tests that ran past a first failure on a fanned-out submission and were stopped or discarded (reported SKIPPED, as a serial run reports them: docs/spec.md 4.10).",
            ),
            (
                "frontier_judge_fanout_shards",
                "fanout_shards",
                "Shard jobs pushed to other workers' idle loops by a submission's worker (fan-out across workers, docs/spec.md 4.10).",
            ),
            (
                "frontier_judge_fanout_shards_refused",
                "fanout_shards_refused",
                "Shard jobs refused by a worker whose limit settings differ from the submission's worker's.",
            ),
            (
                "frontier_judge_fanout_shard_tests",
                "fanout_shard_tests",
                "Tests run by shard jobs for another worker's submission (reported SKIPPED past a first failure are not counted).",
            ),
            (
                "frontier_judge_fanout_shard_slot_seconds",
                "fanout_shard_slot_ms",
                "Slot time of shard jobs (part of frontier_judge_slot_seconds).",
            ),
            (
                "frontier_judge_fanout_reclaimed",
                "fanout_reclaimed",
                "Tests a submission's worker ran again itself because the shard that claimed them let its lease lapse.",
            ),
        ):
            c = CounterMetricFamily(name, doc)
            c.add_metric([], stats.get(field, 0) / (1000 if field.endswith("_ms") else 1))
            out.append(c)
        c = CounterMetricFamily(
            "frontier_judge_start_cost_source",
            "The start rule's decisions on work with a deadline, by the tier of its expected cost that "
            "decided (program, kind, limits) and how the work ended (ran, stopped, no_time: not "
            "started; docs/spec.md 6.7).",
            labels=["source", "ended"],
        )
        for key, value in sorted(stats.items()):
            if key.startswith("start_cost:"):
                c.add_metric(key.split(":")[1:3], value)
        out.append(c)
        c = CounterMetricFamily(
            "frontier_judge_carried",
            "/run_code and /run_jupyter runs still running when their answer was due: answered 504 and "
            "carried on to their own limits for the client's retry (FRONTIER_DEADLINE_CARRY_S, "
            "docs/spec.md 6.7).",
        )
        c.add_metric([], stats.get("carried", 0))
        out.append(c)
        c = CounterMetricFamily(
            "frontier_judge_carried_ended",
            "How carried runs ended: reused (a retry was answered with the outcome), unclaimed "
            "(finished, no retry answered with it yet; moves to reused when one is), stopped (a "
            "waiting retry's caller went away).",
            labels=["ended"],
        )
        for ended in CARRIED_ENDINGS:
            c.add_metric([ended], stats.get(f"carried_ended:{ended}", 0))
        out.append(c)
        c = CounterMetricFamily(
            "frontier_judge_carried_slot_seconds",
            "Slot time of carried runs that finished, by how they ended (reused, unclaimed: abandoned "
            "work beside frontier_judge_abandoned_slot_seconds_total, which holds the stopped ones').",
            labels=["ended"],
        )
        for ended in CARRIED_ENDINGS[:2]:
            c.add_metric([ended], stats.get(f"carried_slot_ms:{ended}", 0) / 1000)
        out.append(c)
        for name, field, doc in (
            (
                "frontier_judge_abandoned",
                "abandoned",
                "Units and runs not judged: before_start, while_running, no_time (the start rule), dropped (a "
                "cancelled run taken off its queue before any worker took it).",
            ),
            (
                "frontier_judge_abandoned_why",
                "abandoned_why",
                "Units and runs not judged, by why: deadline, caller_gone, no_time (docs/spec.md 6.7).",
            ),
            ("frontier_judge_verdicts", "verdict", "Per-test verdicts."),
            ("frontier_judge_outcomes", "outcome", "Outcome classes of judged submissions."),
            ("frontier_judge_results", "status", "Results by status (ok, judge_error)."),
        ):
            c = CounterMetricFamily(name, doc, labels=[field])
            for key, value in sorted(stats.items()):
                if key.startswith(field + ":"):
                    c.add_metric([key.split(":", 1)[1]], value)
            out.append(c)
        return out
