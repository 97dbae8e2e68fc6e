/**
 * Preloaded (`--import`) into the processes `npm start` supervises (the dashboard and the worker):
 * when `npm start` itself dies without stopping them (SIGKILL, a supervisor's timeout), the child
 * is re-parented, and it then stops itself with SIGTERM, as Ctrl-C would have stopped it (the
 * worker lets its running batches commit). Without this, a killed `npm start` left its server on
 * the port and its worker on the database, and the next start failed on both.
 *
 * WEIR_PARENT_PID names the supervising process. The variable and this preload are removed from
 * the environment at once, so processes the child starts in turn do not watch the wrong parent.
 */
const parent = Number(process.env.WEIR_PARENT_PID);
delete process.env.WEIR_PARENT_PID;
if (process.env.NODE_OPTIONS) {
  process.env.NODE_OPTIONS = process.env.NODE_OPTIONS.replace(/--import[= ]"?[^" ]*lifeline\.mjs"?/, '').trim();
}

if (Number.isInteger(parent) && parent > 0) {
  let signalled = false;
  const check = () => {
    // The parent may already be gone before this process got this far (ppid is then init's).
    if (signalled || process.ppid === parent) return;
    signalled = true;
    console.error(`[weir] the npm start that started this process (pid ${parent}) is gone: stopping`);
    process.kill(process.pid, 'SIGTERM');
    // As npm start's own shutdown does: a process that has not finished 30 s later is ended.
    setTimeout(() => process.exit(1), 30_000).unref();
  };
  check();
  setInterval(check, 1000).unref();
}
