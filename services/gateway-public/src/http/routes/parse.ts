import { text } from '@paymesh/http';

/** A non-empty bounded text field whose absence is reported by name. */
export const required = (field: string, max: number) => text(max).refine((v) => v.length > 0, `${field} is required`);
