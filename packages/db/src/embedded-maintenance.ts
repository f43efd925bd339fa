/**
 * PGlite runs PostgreSQL in single-user mode: there is no checkpointer and no autovacuum, and its
 * statistics are not flushed, so nothing ever checkpoints (pg_wal grows without bound and a restart
 * replays everything since the process started) or vacuums (updated and deleted rows stay as bloat).
 * This does both on a timer: a CHECKPOINT every `intervalMs`, and every `vacuumEvery`-th time also a
 * database-wide `VACUUM (ANALYZE)`. Each holds the embedded database for its duration (a checkpoint of
 * a busy 16 MB buffer pool took ~0.13 s), which is why they are minutes apart.
 *
 * Single-user PostgreSQL does not checkpoint on `max_wal_size` either: at full load (~5 MB of WAL per
 * second) pg_wal reached 1.4 GB between two timed checkpoints, all of it disk to hold and WAL to replay
 * after a crash. So the WAL written since the last checkpoint is also looked at every `walCheckMs`, and
 * past `walLimitBytes` (512 MB: where a server with the default `max_wal_size` of 1 GB would start
 * its own) a checkpoint runs then.
 */
export interface EmbeddedMaintenance {
  /** Runs one round now (tests, shutdown); `vacuum` forces the VACUUM as well. */
  run(options?: { vacuum?: boolean }): Promise<{ checkpoint: true; vacuum: boolean }>;
  /** Checkpoints if the WAL since the last checkpoint has reached the limit; whether it did. */
  checkpointIfWalAbove(): Promise<boolean>;
  stop(): void;
}

const WAL_SINCE_CHECKPOINT = `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::bigint::text AS "bytes"
  FROM pg_control_checkpoint()`;

export function startEmbeddedMaintenance(
  exec: (sql: string) => Promise<{ rows: Record<string, unknown>[] }>,
  options: {
    intervalMs?: number;
    vacuumEvery?: number;
    walCheckMs?: number;
    walLimitBytes?: number;
    onError?: (error: unknown) => void;
  } = {},
): EmbeddedMaintenance {
  const intervalMs = options.intervalMs ?? 5 * 60_000;
  const vacuumEvery = options.vacuumEvery ?? 6;
  const walCheckMs = options.walCheckMs ?? 15_000;
  const walLimitBytes = options.walLimitBytes ?? 512 * 1024 * 1024;
  let rounds = 0;
  let running: Promise<unknown> = Promise.resolve();
  /** One maintenance statement at a time, in the order asked. */
  const queue = <T>(task: () => Promise<T>): Promise<T> => {
    const result = running.then(task);
    running = result.catch(() => {});
    return result;
  };

  const run = async ({ vacuum = false } = {}) => {
    rounds++;
    const withVacuum = vacuum || rounds % vacuumEvery === 0;
    await exec("CHECKPOINT");
    if (withVacuum) await exec("VACUUM (ANALYZE)");
    return { checkpoint: true as const, vacuum: withVacuum };
  };
  const checkpointIfWalAbove = async () => {
    const { rows } = await exec(WAL_SINCE_CHECKPOINT);
    if (Number(rows[0]?.bytes ?? 0) < walLimitBytes) return false;
    await exec("CHECKPOINT");
    return true;
  };
  const report = (error: unknown) => options.onError?.(error);
  const timer = setInterval(() => queue(() => run()).catch(report), intervalMs);
  const walTimer = setInterval(() => queue(checkpointIfWalAbove).catch(report), walCheckMs);
  timer.unref();
  walTimer.unref();
  return {
    run: (opts) => queue(() => run(opts)),
    checkpointIfWalAbove: () => queue(checkpointIfWalAbove),
    stop: () => {
      clearInterval(timer);
      clearInterval(walTimer);
    },
  };
}
