/** @jsxImportSource hono/jsx */
/**
 * The dashboard's usage chart (docs/console.md#how-it-works): an account's calculator calls on each of the last 30
 * UTC days as bars, read against a labelled axis and the plan's daily limit, rendered on the server (SVG for
 * the bars, HTML for every word and number, so that text keeps its size whatever the chart's width).
 *
 * - No call in the 30 days: a sentence says so, and no empty box is drawn.
 * - The scale: while the busiest day reaches a quarter of the limit, the axis runs to the limit (or past it,
 *   to the busiest day) and the limit is a dashed line; below that, it runs to a round number just above the
 *   busiest day, so that the bars stay readable, and the key under the chart says the limit is off the scale.
 * - A day's value: each bar is an image named `<day>: <n> calculator calls` for a screen reader; one bar at a
 *   time takes keyboard focus (today's; the arrow keys move between days, lib/console/client/console.ts) and
 *   the read-out under the chart shows the focused or hovered day's calls and their share of the limit.
 */
import type { FC } from 'hono/jsx';
import type { DayCount } from '../rate-limit.ts';

/** The chart's drawing box (SVG user units); the page scales it to its width. */
const WIDTH = 300;
const HEIGHT = 100;

const n = (x: number) => x.toLocaleString('en-US');
const callsText = (x: number) => `${n(x)} calculator call${x === 1 ? '' : 's'}`;

/**
 * The axis of a chart whose values reach `max` (≥ 1): from 0 in equal steps of 1, 2, 2.5 or 5 × 10^k calls,
 * always a whole number of calls (so 2.5 only from 25 up), to the first tick at or past `max`: 2 to 4 steps,
 * 1 when `max` is 1 (13 → 0, 5, 10, 15; 9 → 0, 5, 10; 1,000 → 0, 250, 500, 750, 1,000).
 */
export function axisTicks(max: number): number[] {
  const target = Math.max(max, 1) / 4;
  const power = 10 ** Math.floor(Math.log10(target));
  const steps = [1, 2, 2.5, 5, 10].map((m) => m * power).filter((s) => Number.isInteger(s));
  const step = Math.max(1, steps.find((s) => s >= target) ?? 10 * power);
  const count = Math.ceil(Math.max(max, 1) / step);
  return Array.from({ length: count + 1 }, (_, i) => i * step);
}

/** A bar's name, and the read-out's first words: the day and its calls (`2026-11-27: 13 calculator calls`). */
export function dayText(day: DayCount): string {
  return `${day.day}: ${callsText(day.calls)}`;
}

/** The share of the limit, as the read-out gives it (`1.3 % of the daily limit`). */
function shareText(calls: number, limit: number): string {
  if (limit <= 0) return '';
  const pct = (calls / limit) * 100;
  return `${pct === 0 || pct >= 10 ? Math.round(pct) : pct.toFixed(1)} % of the daily limit`;
}

/** The chart of `days` (oldest first) against `limit` calls a day. */
export const UsageChart: FC<{ days: DayCount[]; limit: number }> = ({ days, limit }) => {
  const first = days[0]?.day ?? '';
  const last = days.at(-1)?.day ?? '';
  const total = days.reduce((sum, d) => sum + d.calls, 0);
  if (total === 0)
    return (
      <figure class="usage" data-testid="usage-chart">
        <p class="empty">
          No calculator calls in the last {days.length} days ({first} to {last}, UTC). Your keys' calls will show here, one bar a day,
          against your plan's limit of {n(limit)} a day.
        </p>
      </figure>
    );
  const busiest = days.reduce((best, d) => (d.calls > best.calls ? d : best), days[0]!);
  const showLimit = busiest.calls * 4 >= limit;
  const ticks = axisTicks(showLimit ? Math.max(limit, busiest.calls) : busiest.calls);
  const top = ticks.at(-1)!;
  const y = (calls: number) => HEIGHT - (calls / top) * HEIGHT;
  const slot = WIDTH / days.length;
  const today = days.at(-1)!;
  return (
    <figure class="usage" aria-labelledby="usage-chart-caption">
      <figcaption id="usage-chart-caption">
        Calculator calls a day, last {days.length} days ({first} to {last}, UTC): {callsText(total)}, at most {n(busiest.calls)} on{' '}
        {busiest.day}.
      </figcaption>
      <div class="chart">
        <ol class="axis" aria-label="Scale, calls a day">
          {[...ticks].reverse().map((t) => (
            <li>{n(t)}</li>
          ))}
        </ol>
        <svg class="usage-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" data-testid="usage-chart">
          <title>Calculator calls, one bar a day</title>
          {ticks.slice(1).map((t) => (
            <line class="grid" x1="0" x2={WIDTH} y1={y(t).toFixed(2)} y2={y(t).toFixed(2)} />
          ))}
          {days.map((d, i) => (
            // biome-ignore lint/a11y/noInteractiveElementToNoninteractiveRole: a bar is an image of its day's value, focusable so that a keyboard reads it (one at a time, arrow keys between days)
            <rect
              class="bar"
              x={(i * slot + slot * 0.15).toFixed(2)}
              y={y(d.calls).toFixed(2)}
              width={(slot * 0.7).toFixed(2)}
              height={(HEIGHT - y(d.calls)).toFixed(2)}
              role="img"
              aria-label={dayText(d)}
              tabindex={d === today ? 0 : -1}
              data-day={d.day}
              data-calls={d.calls}
              data-share={shareText(d.calls, limit)}
            />
          ))}
          {showLimit ? <line class="limit" x1="0" x2={WIDTH} y1={y(limit).toFixed(2)} y2={y(limit).toFixed(2)} data-limit={limit} /> : null}
        </svg>
      </div>
      <p class="key">
        {showLimit
          ? `Dashed line: your plan's limit ${n(limit)} a day.`
          : `Your plan's limit ${n(limit)} a day is off this scale (it runs to ${n(top)}).`}
      </p>
      <p class="readout" aria-live="polite">
        {dayText(today)} ({shareText(today.calls, limit)}). Hover over a bar, or focus it and use the arrow keys, to read another day.
      </p>
    </figure>
  );
};
