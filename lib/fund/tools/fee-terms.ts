/** `get_fee_terms` (and the REST GET of its file under functions/api/v1/fund/): management and performance fee terms per share class. */
import * as z from 'zod';
import { dec, pct4 } from '../../decimal.ts';
import { defineFundTool } from '../definition.ts';
import { currency, label } from '../schemas.ts';
import { CRYSTALLIZATIONS, HURDLE_TYPES } from '../rows.ts';

export const feeTerms = defineFundTool({
  tool: 'get_fee_terms',
  title: 'Fee terms',
  description:
    'Fee terms of each share class: management fee and performance fee (percent per year), hurdle rate and type (hard: fee only on the excess; soft: on the whole gain once cleared; null: none), whether a high-water mark applies, and the crystallization frequency.',
  query: () => z.strictObject({}),
  output: () =>
    z.strictObject({
      currency: currency(),
      shareClasses: z.array(
        z.strictObject({
          id: label(),
          name: label(),
          mgmtFeePct: z.number(),
          perfFeePct: z.number(),
          hurdlePct: z.number().nullable(),
          hurdleType: z.enum(HURDLE_TYPES).nullable(),
          hasHwm: z.boolean(),
          crystallization: z.enum(CRYSTALLIZATIONS),
        }),
      ),
    }),
  example: {},
  problems: [],
  async run({ index, currency: ccy }) {
    return {
      currency: ccy,
      shareClasses: index.shareClasses.map((c) => ({
        id: c.shareClassId,
        name: c.name,
        mgmtFeePct: pct4(dec(c.mgmtFeePct)),
        perfFeePct: pct4(dec(c.perfFeePct)),
        hurdlePct: c.hurdlePct === null ? null : pct4(dec(c.hurdlePct)),
        hurdleType: c.hurdleType,
        hasHwm: c.hasHwm,
        crystallization: c.crystallization,
      })),
    };
  },
});
