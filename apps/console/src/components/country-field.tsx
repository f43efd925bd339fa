"use client";
import { COUNTRY_CODES } from "@cred/contracts/countries";
import { useMemo } from "react";

/** English names from the browser's own CLDR data, so no list of names ships with the console. */
const regionNames = () => new Intl.DisplayNames(["en"], { type: "region", fallback: "code" });

/** A country code as people read it: "Netherlands (NL)". */
export function countryLabel(code: string): string {
  return `${regionNames().of(code) ?? code} (${code})`;
}

/**
 * A labelled `<select>` of the countries by name, whose value is the ISO 3166-1 alpha-2 code (the
 * contract's list, `@cred/contracts/countries`); the empty value is "None". Typing a name's first
 * letters picks it, as in any select.
 */
export function CountryField({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const choices = useMemo(() => {
    const names = regionNames();
    return COUNTRY_CODES.map((code) => ({ code, name: names.of(code) ?? code })).sort((a, b) =>
      a.name.localeCompare(b.name, "en"),
    );
  }, []);
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">None</option>
        {choices.map((choice) => (
          <option key={choice.code} value={choice.code}>
            {choice.name}
          </option>
        ))}
      </select>
    </label>
  );
}
