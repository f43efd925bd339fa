/**
 * PGlite runs PostgreSQL in single-user mode: there is no checkpointer and no autovacuum, and its
 * statistics are not flushed, so nothing ever checkpoints (pg_wal grows without bound and a restart
 * replays everything since the process started) or vacuums (updated and deleted rows stay as bloat).
 * This does both on a timer: a CHECKPOINT every `intervalMs`, and every `vacuumEvery`-th time also a
 * database-wide `VACUUM (ANALYZE)`. Each holds the embedded database for its duration (a checkpoint of
 * a busy 32 MB buffer pool took ~0.1 s), which is why they are minutes apart.
 */
export interface EmbeddedMaintenance {
  /** Runs one round now (tests, shutdown); `vacuum` forces the VACUUM as well. */
  run(options?: { vacuum?: boolean }): Promise<{ checkpoint: true; vacuum: boolean }>;
  stop(): void;
}

export function startEmbeddedMaintenance(
  exec: (sql: string) => Promise<unknown>,
  options: { intervalMs?: number; vacuumEvery?: number; onError?: (error: unknown) => void } = {},
): EmbeddedMaintenance {
  const intervalMs = options.intervalMs ?? 5 * 60_000;
  const vacuumEvery = options.vacuumEvery ?? 6;
  let rounds = 0;
  let running: Promise<unknown> = Promise.resolve();

  const run = async ({ vacuum = false } = {}) => {
    rounds++;
    const withVacuum = vacuum || rounds % vacuumEvery === 0;
    await exec("CHECKPOINT");
    if (withVacuum) await exec("VACUUM (ANALYZE)");
    return { checkpoint: true as const, vacuum: withVacuum };
  };
  const timer = setInterval(() => {
    running = running.then(() => run()).catch((error) => options.onError?.(error));
  }, intervalMs);
  timer.unref();
  return {
    run: (opts) => {
      const round = running.then(() => run(opts));
      running = round.catch(() => {});
      return round;
    },
    stop: () => clearInterval(timer),
  };
}
