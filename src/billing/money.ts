// Characters turned into money for people: one format everywhere figures are shown (plan, sync
// summary, report, status), so that the same bill never reads two ways.

/** `billing:` of the manifest: what a million billed characters cost, in an ISO 4217 currency. */
export interface BillingRate {
  price_per_million: number;
  currency: string;
}

/** 1234567 → "1,234,567" (the one grouping of characters in every output). */
export function formatCharacters(n: number): string {
  return n.toLocaleString('en-US');
}

/** What `characters` cost at `rate` (to a millionth of the currency unit; shown rounded to cents). */
export function costOf(characters: number, rate: BillingRate): number {
  return Math.round(characters * rate.price_per_million) / 1_000_000;
}

/** "€18.80"; a non-zero amount below one cent reads "< €0.01" rather than a misleading "€0.00". */
export function formatMoney(amount: number, currency: string): string {
  const fmt = new Intl.NumberFormat('en-US', { style: 'currency', currency });
  if (amount > 0 && amount < 0.01) return `< ${fmt.format(0.01)}`;
  return fmt.format(amount);
}

/** "752,029 characters" or, with a rate, "752,029 characters (€18.80)". */
export function formatBill(characters: number, rate?: BillingRate): string {
  const chars = `${formatCharacters(characters)} characters`;
  if (!rate) return chars;
  return `${chars} (${formatMoney(costOf(characters, rate), rate.currency)})`;
}
