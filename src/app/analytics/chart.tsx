/**
 * A small SVG chart (a line over days, or bars by name), drawn by the app itself until a chart
 * library is installed. The numbers are also in a table beside it, for screen readers and for
 * reading exact values; the drawing is one image with a name.
 */
export type Point = { label: string; value: number };

const W = 640;
const H = 220;
const PAD = { left: 44, right: 12, top: 12, bottom: 28 };

function niceMax(max: number): number {
  if (max <= 0) return 1;
  const step = 10 ** Math.floor(Math.log10(max));
  return Math.ceil(max / step) * step;
}

function compact(n: number): string {
  return new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 }).format(n);
}

export function Chart({ title, points, kind }: { title: string; points: Point[]; kind: 'line' | 'bars' }) {
  const max = niceMax(Math.max(0, ...points.map((p) => p.value)));
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const y = (v: number) => PAD.top + innerH - (v / max) * innerH;
  const step = points.length > 1 ? innerW / (points.length - 1) : innerW;
  const band = innerW / Math.max(points.length, 1);
  const x = (i: number) => (kind === 'line' ? PAD.left + (points.length > 1 ? i * step : innerW / 2) : PAD.left + i * band + band / 2);
  // At most about eight labels along the bottom.
  const every = Math.max(1, Math.ceil(points.length / 8));
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      {points.length === 0 ? (
        <p class="muted">No numbers in this range.</p>
      ) : (
        <svg
          viewBox={`0 0 ${W} ${H}`}
          role="img"
          aria-label={`${title}: ${points.length} values, highest ${compact(Math.max(...points.map((p) => p.value)))}`}
        >
          {[0, 0.5, 1].map((f) => (
            <g class="grid">
              <line x1={PAD.left} x2={W - PAD.right} y1={y(max * f)} y2={y(max * f)} />
              <text x={PAD.left - 6} y={y(max * f) + 4} text-anchor="end">
                {compact(max * f)}
              </text>
            </g>
          ))}
          {kind === 'line' ? (
            <>
              <polyline class="series" points={points.map((p, i) => `${x(i)},${y(p.value)}`).join(' ')} />
              {points.map((p, i) => (
                <circle class="dot" cx={x(i)} cy={y(p.value)} r={points.length > 40 ? 1.5 : 3} />
              ))}
            </>
          ) : (
            points.map((p, i) => (
              <rect
                class="bar"
                x={x(i) - band * 0.35}
                width={band * 0.7}
                y={y(p.value)}
                height={Math.max(0, PAD.top + innerH - y(p.value))}
              />
            ))
          )}
          {points.map((p, i) =>
            i % every === 0 ? (
              <text
                class="axis"
                x={x(i)}
                y={H - 8}
                text-anchor={kind === 'bars' ? 'middle' : i === 0 ? 'start' : i === points.length - 1 ? 'end' : 'middle'}
              >
                {p.label.length > 14 ? `${p.label.slice(0, 13)}…` : p.label}
              </text>
            ) : null,
          )}
        </svg>
      )}
      {points.length > 0 && (
        <details>
          <summary>The numbers</summary>
          <table>
            <tbody>
              {points.map((p) => (
                <tr>
                  <th scope="row">{p.label}</th>
                  <td>{p.value.toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </figure>
  );
}
