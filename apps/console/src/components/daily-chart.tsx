import type { TDashboardSummary } from "@cred/contracts/dashboard";

type Day = TDashboardSummary["daily"][number];
const SERIES = [
  { key: "issuances", label: "Issuances", className: "bar-issuances" },
  { key: "verifications", label: "Verifications", className: "bar-verifications" },
] as const;

/** Grouped bars per day, drawn as inline SVG; the same numbers follow as a table for screen readers. */
export function DailyChart({ daily }: { daily: Day[] }) {
  const width = 640;
  const height = 200;
  const pad = { top: 10, right: 10, bottom: 28, left: 32 };
  const max = Math.max(1, ...daily.flatMap((d) => [d.issuances, d.verifications]));
  const slot = (width - pad.left - pad.right) / Math.max(1, daily.length);
  const bar = Math.max(2, (slot - 6) / 2);
  const y = (v: number) => pad.top + (height - pad.top - pad.bottom) * (1 - v / max);
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby="chart-title chart-desc">
        <title id="chart-title">Issuances and verifications per day</title>
        <desc id="chart-desc">
          Bars per day for the last {daily.length} days; the table below lists the same numbers.
        </desc>
        <line x1={pad.left} x2={width - pad.right} y1={y(0)} y2={y(0)} className="axis" />
        <text x={pad.left - 6} y={y(max) + 4} textAnchor="end" className="tick">
          {max}
        </text>
        <text x={pad.left - 6} y={y(0)} textAnchor="end" className="tick">
          0
        </text>
        {daily.map((d, i) => {
          const x0 = pad.left + i * slot + 3;
          return (
            <g key={d.day}>
              {SERIES.map((s, j) => (
                <rect
                  key={s.key}
                  x={x0 + j * bar}
                  y={y(d[s.key])}
                  width={bar}
                  height={Math.max(0, y(0) - y(d[s.key]))}
                  className={s.className}
                >
                  <title>{`${d.day}: ${d[s.key]} ${s.label.toLowerCase()}`}</title>
                </rect>
              ))}
              {(i % Math.ceil(daily.length / 7) === 0 || i === daily.length - 1) && (
                <text x={x0 + bar} y={height - 8} textAnchor="middle" className="tick">
                  {d.day.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption className="legend">
        {SERIES.map((s) => (
          <span key={s.key}>
            <span className={`swatch ${s.className}`} aria-hidden="true" /> {s.label}
          </span>
        ))}
      </figcaption>
      <table className="visually-hidden">
        <caption>Issuances and verifications per day</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Issuances</th>
            <th scope="col">Credentials issued</th>
            <th scope="col">Verifications</th>
          </tr>
        </thead>
        <tbody>
          {daily.map((d) => (
            <tr key={d.day}>
              <th scope="row">{d.day}</th>
              <td>{d.issuances}</td>
              <td>{d.credentials}</td>
              <td>{d.verifications}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
