// Time spent per SQL statement in the embedded database's thread: a diagnostic for `pnpm bench
// --db-statements`, on when EMBEDDED_STATEMENT_STATS names a file. The file is rewritten with the
// running totals four times a second, so a reader can take differences over any window.
import fs from "node:fs";

const WRITE_EVERY_MS = 250;
/** A unit that held the database this long stalled every request queued behind it (see `slow`). */
const SLOW_MS = 15;
const KEY_LENGTH = 160;

/** The statement a protocol unit runs: a Parse's or simple Query's text, or a Bind's prepared statement. */
function statementOf(unit, names) {
  const type = unit[0];
  const end = 1 + unit.readInt32BE(1);
  if (type === 0x51 /* Q */) return unit.toString("utf8", 5, end - 1);
  if (type === 0x50 /* P */) {
    const nameEnd = unit.indexOf(0, 5);
    const text = unit.toString("utf8", nameEnd + 1, unit.indexOf(0, nameEnd + 1));
    const name = unit.toString("utf8", 5, nameEnd);
    if (name) names.set(name, text);
    return text;
  }
  if (type === 0x42 /* B */) {
    const portalEnd = unit.indexOf(0, 5);
    const name = unit.toString("utf8", portalEnd + 1, unit.indexOf(0, portalEnd + 1));
    return names.get(name) ?? `(prepared statement ${name || "unnamed"})`;
  }
  return `(protocol message ${String.fromCharCode(type)})`;
}

const normalise = (sql) => sql.replace(/\s+/g, " ").replaceAll('"public".', "").trim().slice(0, KEY_LENGTH);

/** @param {string | undefined} file */
export function statementStats(file) {
  if (!file) return null;
  /** @type {Map<string, string>} */
  const names = new Map();
  /** @type {Map<string, { count: number, ms: number, slow: number }>} */
  const totals = new Map();
  const write = () => {
    const statements = [...totals].map(([sql, t]) => ({ sql, count: t.count, ms: t.ms, slow: t.slow }));
    fs.writeFileSync(`${file}.tmp`, JSON.stringify({ statements }));
    fs.renameSync(`${file}.tmp`, file);
  };
  const timer = setInterval(write, WRITE_EVERY_MS);
  timer.unref();
  return {
    /** Counts one unit that took `ms` of the database thread. */
    record(unit, ms) {
      const key = normalise(statementOf(unit, names));
      const slow = ms >= SLOW_MS ? 1 : 0;
      const total = totals.get(key);
      if (total) {
        total.count++;
        total.ms += ms;
        total.slow += slow;
      } else totals.set(key, { count: 1, ms, slow });
    },
    stop() {
      clearInterval(timer);
      write();
    },
  };
}
