import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { UsageDay } from '../api-types.js';
import { count } from '../format.js';
import { KIND_COLOURS, KIND_LABELS, KINDS } from '../kinds.js';
import { ScrollRegion } from './scroll-region.js';

const HEIGHT = 260;

/**
 * Daily requests per kind, one line each (uPlot on a canvas; it sizes its elements through the
 * CSSOM, which the page's CSP allows). The same figures are in a table below it for keyboard and
 * screen-reader users, who get nothing from the canvas.
 */
export function UsageChart({ days }: { days: UsageDay[] }) {
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const el = box.current;
    if (!el || days.length === 0) return;
    const data: uPlot.AlignedData = [
      days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000),
      ...KINDS.map((k) => days.map((d) => d[k])),
    ];
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 280),
        height: HEIGHT,
        // Days are UTC days (the monthly cap's months are UTC too).
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: { x: { time: true } },
        axes: [{}, { size: 56, values: (_u, ticks) => ticks.map((t) => count(t)) }],
        series: [
          { label: 'Day' },
          ...KINDS.map((k) => ({ label: KIND_LABELS[k], stroke: KIND_COLOURS[k], width: 2 })),
        ],
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(el.clientWidth, 280), height: HEIGHT }),
    );
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [days]);

  const first = days[0]?.date ?? '';
  const last = days.at(-1)?.date ?? '';
  return (
    <figure class="chart">
      <figcaption>
        Requests per day by kind, {first} to {last} (UTC)
      </figcaption>
      <div
        ref={box}
        class="chart-canvas"
        role="img"
        aria-label={`Line chart of daily requests per kind from ${first} to ${last}; the table below has the figures.`}
      />
      <details>
        <summary>Daily figures as a table</summary>
        <ScrollRegion label="Daily figures">
          <table>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {KINDS.map((k) => (
                  <th scope="col" key={k}>
                    {KIND_LABELS[k]}
                  </th>
                ))}
                <th scope="col">Total</th>
              </tr>
            </thead>
            <tbody>
              {[...days].reverse().map((d) => (
                <tr key={d.date}>
                  <th scope="row">{d.date}</th>
                  {KINDS.map((k) => (
                    <td key={k} class="num">
                      {count(d[k])}
                    </td>
                  ))}
                  <td class="num">{count(d.total)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </details>
    </figure>
  );
}
