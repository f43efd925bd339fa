/**
 * The form's "claim values" text, `age_over_18=true; nationality=DE|AT`, as the policy's `claimValues`:
 * `true`/`false` are booleans, whole numbers integers, the rest strings (the API checks each path).
 */
export function parseClaimValues(text: string): { path: string[]; values: (string | number | boolean)[] }[] {
  return text
    .split(/[;\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      const at = entry.indexOf("=");
      const name = (at < 0 ? entry : entry.slice(0, at)).trim();
      const values = (at < 0 ? "" : entry.slice(at + 1)).split("|").map((v) => v.trim());
      return {
        path: [name],
        values: values
          .filter((v) => v.length > 0)
          .map((v) => (v === "true" ? true : v === "false" ? false : /^-?\d{1,15}$/.test(v) ? Number(v) : v)),
      };
    });
}
