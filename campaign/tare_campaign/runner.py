"""Running a campaign's tasks (issue 25): serially, or on Dask distributed.

Results: OUT/results/<key, '/' as '~'>.json, written by this process (never by a worker) when a task's result
comes back, through a temporary file renamed into place: a key's file appears once, whole, and a
rerun skips every key that has one whose task hash (tasks.task_hash: the model file's bytes, the
inputs, the engine settings) is the current one; a stale or unreadable one is run again. A task whose worker dies is run again by Dask on another
worker (the scheduler's retries); its result is still written once, here.

Timing honesty: the outputs tasks run first, in parallel; then the timing tasks, each holding the
one lease of the Dask semaphore "tare-campaign-timing-<host>" of its machine while it runs, so no
two timing tasks share a machine and no outputs task runs beside one (they are all done by then).

    run(campaign, out, tare_exe, serial=False, scheduler=None, workers=2, log=print)
"""

import json
import os
import socket

from . import tasks as T


def _write(out, res):
    d = os.path.join(out, "results")
    os.makedirs(d, exist_ok=True)
    f = os.path.join(d, T.key_file(res["key"]))
    tmp = f + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(res, fh, indent=1, sort_keys=True)
    os.replace(tmp, f)


def done_keys(out):
    """{key: task_hash} of the readable results under out/results (an unreadable one is not done)."""
    d = os.path.join(out, "results")
    done = {}
    for f in os.listdir(d) if os.path.isdir(d) else []:
        if not f.endswith(".json"):
            continue
        try:
            with open(os.path.join(d, f)) as fh:
                r = json.load(fh)
            # An outputs result whose .npy is gone is not done (the report needs the file).
            if r.get("outputs_file") and not os.path.isfile(os.path.join(out, r["outputs_file"])):
                continue
            done[r["key"]] = r.get("task_hash")
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return done


def _timing_with_lock(task, out_dir, tare_exe):
    # A one-lease Dask Semaphore per machine: its lease lapses when the worker holding it dies
    # (a Lock would stay taken), so a killed worker never blocks the machine's timing tasks.
    from distributed import Semaphore
    with Semaphore(max_leases=1, name="tare-campaign-timing-" + socket.gethostname()):
        return T.run_task(task, out_dir, tare_exe)


def run(campaign, out, tare_exe, serial=False, scheduler=None, workers=2, log=print):
    """Runs the tasks of `campaign` (spec.load's dict) not yet done under `out`. Returns
    (tasks run now, tasks skipped as done, failures: list of (key, message))."""
    os.makedirs(out, exist_ok=True)
    all_tasks = T.expand(campaign)
    have = done_keys(out)
    pending = [t for t in all_tasks if have.get(t["key"], "") != T.task_hash(t)]
    stale = sum(1 for t in pending if t["key"] in have)
    skipped = len(all_tasks) - len(pending)
    log(f"campaign {campaign['name']}: {len(all_tasks)} tasks, {skipped} done before, {len(pending)} to run"
        + (f" ({stale} of them done before with other settings or another model file)" if stale else ""))
    out_dir = os.path.join(out, "outputs")
    failures = []
    ran = 0

    def record(t, result):
        # One task's end: its result written (once, here), or its failure reported; the others go on.
        nonlocal ran
        try:
            res = result()
        except Exception as e:
            failures.append((t["key"], str(e)))
            log(f"FAILED {t['key']}: {e}")
            return
        _write(out, res)
        ran += 1
        log(f"done {t['key']} (on {res['host']} pid {res['pid']})")

    def describe():
        with open(os.path.join(out, "campaign.json"), "w") as fh:
            json.dump(campaign, fh, indent=1)

    if serial:
        describe()
        for t in pending:
            record(t, lambda: T.run_task(t, out_dir, tare_exe))
        return ran, skipped, failures
    from distributed import Client, LocalCluster, as_completed
    cluster = None
    if scheduler:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, ValueError, TimeoutError) as e:
            raise RuntimeError(f"cannot reach the Dask scheduler {scheduler}: {e}") from None
    else:
        # A timing lease held by a worker that died lapses after 6 s (Dask's default: 30 s).
        os.environ.setdefault("DASK_DISTRIBUTED__SCHEDULER__LOCKS__LEASE_TIMEOUT", "6s")
        os.environ.setdefault("DASK_DISTRIBUTED__SCHEDULER__LOCKS__LEASE_VALIDATION_INTERVAL", "1s")
        import dask
        dask.config.refresh()
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        describe()
        for phase in ("outputs", "timing"):
            batch = [t for t in pending if t["kind"] == phase]
            if not batch:
                continue
            fn = T.run_task if phase == "outputs" else _timing_with_lock
            futures = {client.submit(fn, t, out_dir, tare_exe, key="tare-campaign-" + t["key"], pure=False): t for t in batch}
            for fut in as_completed(futures):
                record(futures[fut], fut.result)
    finally:
        client.close()
        if cluster:
            cluster.close()
    return ran, skipped, failures
