import { z } from 'zod';
import { isCurrencyCode } from '../../util/currency.js';

// `billing` and `budget` of the manifest: the price of a billed character, and caps on them.

export const billingSchema = z.strictObject({
  price_per_million: z
    .number()
    .nonnegative()
    .describe("Price of one million billed characters (your plan's rate), e.g. 25."),
  currency: z
    .string()
    .refine(isCurrencyCode, { message: 'expected an ISO 4217 currency code such as EUR, USD or JPY' })
    .describe('ISO 4217 currency code of the price (EUR, USD, JPY ...).'),
});

const characterCap = z.number().int().min(0);
export const budgetSchema = z.strictObject({
  per_run: characterCap
    .optional()
    .describe(
      'Characters one sync may bill. A run whose plan is over it uploads nothing (exit code "budget reached"); a run whose bills outgrow the estimate stops uploading when the next upload would go over it. `sync --max-billed N` replaces it for one run. `watch` does not apply it (it has no end): use per_month.',
    ),
  per_month: characterCap
    .optional()
    .describe(
      "Characters a calendar month (UTC) may bill, counted from the state's ledger of billed characters. A run that would go over it uploads nothing; a run (sync, or a watch session) stops uploading when the next upload would go over it.",
    ),
});

export type Budget = z.infer<typeof budgetSchema>;
