import type { TActivityBucket } from "@cred/contracts/activity";

export const ACTIVITY_SERIES = [
  { key: "issued", label: "Issued" },
  { key: "verified", label: "Verified" },
  { key: "rejected", label: "Rejected" },
  { key: "revoked", label: "Revoked" },
] as const;

/**
 * Activity_Get's buckets as one line per count (issued, verified, rejected, revoked) over the days, drawn as
 * inline SVG; the same numbers follow as a table for screen readers.
 */
export function ActivityChart({ buckets, title }: { buckets: TActivityBucket[]; title: string }) {
  const width = 640;
  const height = 200;
  const pad = { top: 10, right: 10, bottom: 28, left: 32 };
  const max = Math.max(1, ...buckets.flatMap((b) => ACTIVITY_SERIES.map((s) => b[s.key] ?? 0)));
  const step = (width - pad.left - pad.right) / Math.max(1, buckets.length - 1);
  const x = (i: number) => pad.left + (buckets.length === 1 ? (width - pad.left - pad.right) / 2 : i * step);
  const y = (v: number) => pad.top + (height - pad.top - pad.bottom) * (1 - v / max);
  const labelEvery = Math.ceil(buckets.length / 7);
  return (
    <figure className="chart">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-labelledby="activity-chart-title activity-chart-desc"
      >
        <title id="activity-chart-title">{title}</title>
        <desc id="activity-chart-desc">
          Lines per day for the last {buckets.length} days; the table below lists the same numbers.
        </desc>
        <line x1={pad.left} x2={width - pad.right} y1={y(0)} y2={y(0)} className="axis" />
        <text x={pad.left - 6} y={y(max) + 4} textAnchor="end" className="tick">
          {max}
        </text>
        <text x={pad.left - 6} y={y(0)} textAnchor="end" className="tick">
          0
        </text>
        {ACTIVITY_SERIES.map((s) => (
          <g key={s.key} className={`series series-${s.key}`}>
            <polyline fill="none" points={buckets.map((b, i) => `${x(i)},${y(b[s.key] ?? 0)}`).join(" ")} />
            {buckets.map((b, i) =>
              (b[s.key] ?? 0) > 0 ? (
                <circle key={b.start} cx={x(i)} cy={y(b[s.key] ?? 0)} r={3}>
                  <title>{`${b.start}: ${b[s.key]} ${s.label.toLowerCase()}`}</title>
                </circle>
              ) : null,
            )}
          </g>
        ))}
        {buckets.map((b, i) =>
          i % labelEvery === 0 || i === buckets.length - 1 ? (
            <text key={b.start} x={x(i)} y={height - 8} textAnchor="middle" className="tick">
              {b.start.slice(5)}
            </text>
          ) : null,
        )}
      </svg>
      <figcaption className="legend">
        {ACTIVITY_SERIES.map((s) => (
          <span key={s.key}>
            <span className={`swatch series-${s.key}`} aria-hidden="true" /> {s.label}
          </span>
        ))}
      </figcaption>
      <table className="visually-hidden">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">Day (UTC)</th>
            {ACTIVITY_SERIES.map((s) => (
              <th key={s.key} scope="col">
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {buckets.map((b) => (
            <tr key={b.start}>
              <th scope="row">{b.start}</th>
              {ACTIVITY_SERIES.map((s) => (
                <td key={s.key}>{b[s.key] ?? "—"}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
