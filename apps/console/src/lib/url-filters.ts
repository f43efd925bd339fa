"use client";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { type FormEvent, useState } from "react";

/** A calendar day as a date input gives it (`YYYY-MM-DD`). */
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Filter values by name, as the URL holds them (strings; "" = no filter). */
export type FilterValues<N extends string> = Record<N, string>;

/**
 * The filters of a record list, kept in the URL (`/transactions?status=pending&createdFrom=2026-11-01`) so a
 * filtered view can be reloaded and shared. `applied` is what the URL says (values a `check` refuses read as
 * ""); `draft` is the form being edited. `submit` and `clear` put the draft into the URL, keeping
 * `pageSize`, which re-queries the list. Render the page keyed by the URL's search string, so the form
 * starts from the URL again after any navigation (e.g. the nav link).
 */
export function useUrlFilters<N extends string>(
  names: readonly N[],
  check: Partial<Record<N, (value: string) => boolean>> = {},
) {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const read = (): FilterValues<N> => {
    const values = {} as FilterValues<N>;
    for (const name of names) {
      const value = searchParams.get(name)?.trim() ?? "";
      values[name] = value && (check[name]?.(value) ?? true) ? value : "";
    }
    return values;
  };
  const applied = read();
  const [draft, setDraft] = useState<FilterValues<N>>(applied);

  const apply = (filters: FilterValues<N>) => {
    const params = new URLSearchParams();
    const size = searchParams.get("pageSize");
    if (size) params.set("pageSize", size);
    for (const name of names) if (filters[name].trim()) params.set(name, filters[name].trim());
    const search = params.toString();
    router.replace(search ? `${pathname}?${search}` : pathname);
  };
  const none = Object.fromEntries(names.map((n) => [n, ""])) as FilterValues<N>;

  return {
    applied,
    draft,
    /** An onChange for one field of the draft. */
    set: (name: N) => (value: string) => setDraft((d) => ({ ...d, [name]: value })),
    submit: (e: FormEvent) => {
      e.preventDefault();
      apply(draft);
    },
    clear: () => {
      setDraft(none);
      apply(none);
    },
    /** Whether any filter is applied. */
    filtered: names.some((n) => applied[n] !== ""),
  };
}

/** Whether a value is a calendar day (`YYYY-MM-DD`). */
export const isDay = (value: string) => DAY.test(value);

/** Whether a value is one of `options`. */
export const oneOf =
  (options: readonly string[]) =>
  (value: string): boolean =>
    options.includes(value);

/** The start of a local calendar day (`YYYY-MM-DD`), `plusDays` later, as an ISO time. */
export function startOfDay(day: string, plusDays = 0): string {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return new Date(y, m - 1, d + plusDays).toISOString();
}

/**
 * A day range as the list procedures take it: `from` the start of its day (inclusive), `to` the start of
 * the day after (exclusive), so `to` includes its whole day.
 */
export function dayRange(from: string, to: string): { from?: string; to?: string } {
  return { ...(from && { from: startOfDay(from) }), ...(to && { to: startOfDay(to, 1) }) };
}

/** A dynamic route segment as typed (an id opened from a form arrives percent-encoded). */
export function routeParam(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
