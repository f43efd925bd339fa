"use client";
import type { InputHTMLAttributes, ReactNode } from "react";

/** A labelled text input; `children` follow the input inside the label (e.g. a hint it describes itself by). */
export function TextField({
  label,
  value,
  onChange,
  children,
  ...input
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  children?: ReactNode;
} & Omit<InputHTMLAttributes<HTMLInputElement>, "value" | "onChange" | "children">) {
  return (
    <label>
      {label}
      <input {...input} value={value} onChange={(e) => onChange(e.target.value)} />
      {children}
    </label>
  );
}

/** A labelled, required `<select>` that starts at "Choose…". */
export function ChoiceField({
  label,
  value,
  onChange,
  choices,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  choices: { value: string; label: string }[];
}) {
  return (
    <label>
      {label}
      <select required value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Choose…</option>
        {choices.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A labelled `<select>` narrowing a list: the empty value (`allLabel`) means no filter. */
export function FilterField<T extends string>({
  label,
  value,
  onChange,
  allLabel,
  options,
}: {
  label: string;
  value: "" | T;
  onChange: (value: "" | T) => void;
  allLabel: string;
  options: readonly (T | { value: T; label: string })[];
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value as "" | T)}>
        <option value="">{allLabel}</option>
        {options.map((option) => {
          const { value: v, label: text } =
            typeof option === "string" ? { value: option, label: option } : option;
          return (
            <option key={v} value={v}>
              {text}
            </option>
          );
        })}
      </select>
    </label>
  );
}

/** A grid of checkboxes choosing several of `options`; `checked` keeps the order they were checked in. */
export function CheckboxGrid<T extends string>({
  options,
  checked,
  onChange,
}: {
  options: readonly T[];
  checked: T[];
  onChange: (checked: T[]) => void;
}) {
  return (
    <div className="checkbox-grid">
      {options.map((option) => (
        <label key={option} className="inline">
          <input
            type="checkbox"
            checked={checked.includes(option)}
            onChange={(e) =>
              onChange(e.target.checked ? [...checked, option] : checked.filter((c) => c !== option))
            }
          />
          {option}
        </label>
      ))}
    </div>
  );
}

/** A form's submit button: disabled while the submission is pending, and saying so. */
export function SubmitButton({
  pending,
  disabled = false,
  pendingLabel = "Creating…",
  children,
}: {
  pending: boolean;
  /** Disabled for another reason too, e.g. a choice is missing. */
  disabled?: boolean;
  pendingLabel?: string;
  children: ReactNode;
}) {
  return (
    <button type="submit" disabled={pending || disabled}>
      {pending ? pendingLabel : children}
    </button>
  );
}
