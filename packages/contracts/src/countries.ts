import { getAlpha2Codes } from "i18n-iso-countries/index.js";

/**
 * The ISO 3166-1 alpha-2 codes a country may be given as, from the `i18n-iso-countries` registry: the
 * 249 officially assigned codes and XK (Kosovo, user-assigned, used by the EU and most registries).
 * Reserved and user-assigned codes otherwise (EU, UK, ZZ, …) are refused. Imported through the
 * package's browser entry (`index.js`) so neither the API nor the console loads its translations: the
 * console names countries with `Intl.DisplayNames`.
 */
export const COUNTRY_CODES: readonly string[] = Object.keys(getAlpha2Codes()).sort();

const assigned = new Set(COUNTRY_CODES);

/** Whether `code` is one of COUNTRY_CODES (upper case, as stored). */
export function isCountryCode(code: string): boolean {
  return assigned.has(code);
}
