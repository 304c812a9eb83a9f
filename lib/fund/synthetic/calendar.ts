/**
 * What the simulation knows before its first day: the expenses the fund will accrue and pay (with their
 * dates), and the days whose NAV run fails, is partial, or breaks reconciliation. Both draw from the
 * simulation's random stream right after the prices, in this order.
 */
import { addDays } from '../analytics/runs.ts';
import { money } from './arithmetic.ts';
import { MONTHS } from './names.ts';
import { pick, uniform } from './random.ts';
import { type Simulation, dateOf } from './state.ts';

/**
 * The expense schedule: monthly data licences, administration and custody fees, quarterly audit and
 * directors' fees, and occasional legal fees (one quoting an e-mail address, which redaction masks), each
 * paid some days after it accrues. Sets `expenses`, `accrualsOn` and `paymentsOn`.
 */
export function scheduleExpenses(sim: Simulation): void {
  const { spec, rand, n, inception, expenses } = sim;
  let seq = 0;
  const add = (date: string, category: string, description: string, cents: number, payAfter: number) => {
    if (date < inception || date > spec.endDate) return;
    const paid = addDays(date, payAfter);
    expenses.push({
      id: `EXP-${String(++seq).padStart(4, '0')}`,
      date,
      category,
      description,
      amount: money(cents),
      status: paid <= spec.endDate ? 'paid' : 'accrued',
      paidDate: paid <= spec.endDate ? paid : null,
    });
  };
  const monthName = (d: string) => `${MONTHS[+d.slice(5, 7) - 1]} ${d.slice(0, 4)}`;
  for (let t = 0; t < n; t++) {
    const date = dateOf(sim, t);
    const next = dateOf(sim, t + 1);
    const monthEnd = next.slice(8) === '01';
    if (date.slice(8) === '01')
      add(
        date,
        'software_data',
        `Market data and portfolio system licences, ${monthName(date)}`,
        345_000 + Math.round(uniform(rand, 0, 40_000)),
        20,
      );
    if (monthEnd) {
      add(date, 'administration', `Fund administration fee, ${monthName(date)}`, 1_250_000, 15);
      add(
        date,
        'custody',
        `Custody fees (Anchorage Digital, BitGo), ${monthName(date)}`,
        380_000 + Math.round(uniform(rand, 0, 220_000)),
        18,
      );
      const month = +date.slice(5, 7);
      if (month % 3 === 0) {
        add(date, 'audit', `Annual audit fee accrual, Q${month / 3} ${date.slice(0, 4)}`, 2_200_000, 45);
        add(date, 'directors', `Independent directors' fees, Q${month / 3} ${date.slice(0, 4)}`, 750_000, 10);
      }
    }
    if (t === Math.floor(n / 3)) {
      // A description as an administrator keys it in, quoting the e-mail it came from: redaction masks it.
      add(date, 'legal', 'Legal review of a side letter; invoice sent by counsel from billing@harbourlegal.example.com', 1_480_000, 30);
    } else if (t > 20 && rand() < 0.01) {
      const description = pick(rand, [
        'Legal counsel: offering memorandum update',
        'Legal counsel: regulatory filing review',
        'Legal counsel: ISDA negotiation',
      ]);
      add(date, 'legal', description, Math.round(uniform(rand, 600_000, 2_500_000)), 30);
    }
  }
  for (const e of expenses) {
    sim.accrualsOn.set(e.date, [...(sim.accrualsOn.get(e.date) ?? []), e]);
    if (e.paidDate) sim.paymentsOn.set(e.paidDate, [...(sim.paymentsOn.get(e.paidDate) ?? []), e]);
  }
}

/**
 * The run statuses: a few failed, partial and break days, never adjacent; the last run is a break so that
 * "latest usable" is not "latest". Sets `special`.
 */
export function markSpecialDays(sim: Simulation): void {
  const { rand, n, special } = sim;
  special.set(n - 1, 'break');
  const mark = (kind: 'failed' | 'partial' | 'break', count: number) => {
    for (let k = 0; k < count; ) {
      const t = 5 + Math.floor(rand() * (n - 8));
      if (!special.has(t) && !special.has(t - 1) && !special.has(t + 1)) {
        special.set(t, kind);
        k++;
      }
    }
  };
  mark('failed', 4);
  mark('partial', 4);
  mark('break', 6);
}

/** Cents of a money text (`"12.34"` → 1234). */
export const cents = (s: string): number => Math.round(Number(s) * 100);
