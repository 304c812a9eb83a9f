/** @jsxImportSource hono/jsx */
/**
 * The dashboard's usage chart (docs/console.md#how-it-works): an account's calculator calls on each of the last 30
 * UTC days as bars, beside its plan's daily limit drawn as a line, in SVG rendered on the server (no
 * script). Its text alternative says the total, the busiest day and the limit; each bar's `<title>` its day.
 */
import type { FC } from 'hono/jsx';
import type { DayCount } from '../rate-limit.ts';

/** The chart's drawing box (SVG user units); the page scales it to its width. */
const WIDTH = 300;
const HEIGHT = 100;
/** Space at the top for the limit's label. */
const TOP = 12;

const n = (x: number) => x.toLocaleString('en-US');

/**
 * The chart of `days` (oldest first) against `limit` calls a day. While the busiest day reaches a quarter of
 * the limit, the scale reaches the larger of the two and the limit is a dashed line (a day over it shows
 * over it); below that, the scale is the busiest day's, so the bars stay readable, and the caption says the
 * limit is above the chart.
 */
export const UsageChart: FC<{ days: DayCount[]; limit: number }> = ({ days, limit }) => {
  const busiest = days.reduce((best, d) => (d.calls > best.calls ? d : best), days[0] ?? { day: '', calls: 0 });
  const showLimit = busiest.calls * 4 >= limit;
  const top = showLimit ? Math.max(limit, busiest.calls, 1) : Math.max(busiest.calls, 1);
  const y = (calls: number) => HEIGHT - (calls / top) * (HEIGHT - TOP);
  const slot = WIDTH / days.length;
  const total = days.reduce((sum, d) => sum + d.calls, 0);
  const first = days[0]?.day ?? '';
  const last = days.at(-1)?.day ?? '';
  const calls = (x: number) => `${n(x)} calculator call${x === 1 ? '' : 's'}`;
  const used =
    total === 0
      ? `No calculator calls from ${first} to ${last}`
      : `${calls(total)} from ${first} to ${last}, at most ${n(busiest.calls)} on ${busiest.day}`;
  const scale = showLimit
    ? `the dashed line is the plan's limit, ${n(limit)} a day.`
    : `the bars reach ${n(top)} a day; the plan's limit, ${n(limit)} a day, is above the chart.`;
  return (
    <figure class="usage">
      <svg
        class="usage-chart"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-labelledby="usage-chart-caption"
        data-testid="usage-chart"
      >
        <title>Calculator calls a day, last {days.length} days</title>
        {days.map((d, i) => (
          <rect
            class="bar"
            x={(i * slot + slot * 0.15).toFixed(2)}
            y={y(d.calls).toFixed(2)}
            width={(slot * 0.7).toFixed(2)}
            height={(HEIGHT - y(d.calls)).toFixed(2)}
            data-day={d.day}
            data-calls={d.calls}
          >
            <title>{`${d.day}: ${calls(d.calls)}`}</title>
          </rect>
        ))}
        {showLimit ? <line class="limit" x1="0" x2={WIDTH} y1={y(limit).toFixed(2)} y2={y(limit).toFixed(2)} data-limit={limit} /> : null}
      </svg>
      <figcaption id="usage-chart-caption">
        Last {days.length} days (UTC): {used}; {scale}
      </figcaption>
    </figure>
  );
};
