/** A bad translation a fault makes the service return (src/local-service/bad-outputs.ts). */
export const BAD_OUTPUT_KINDS = ['untranslated', 'truncated', 'dropped-segments', 'wrong-language'] as const;
export type BadOutputKind = (typeof BAD_OUTPUT_KINDS)[number];
