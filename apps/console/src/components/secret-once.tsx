"use client";
import { useState } from "react";

/** A secret shown once, with a copy button; focused so keyboard and screen-reader users notice it. */
export function SecretOnce({
  label,
  value,
  onDismiss,
}: {
  label: string;
  value: string;
  onDismiss: () => void;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <section className="secret" aria-labelledby="secret-title" tabIndex={-1} ref={(el) => el?.focus()}>
      <h2 id="secret-title">{label}</h2>
      <p>Copy it now: it is shown only once and cannot be retrieved later.</p>
      <div className="secret-row">
        <code data-testid="secret-value">{value}</code>
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard?.writeText(value).catch(() => undefined);
            setCopied(true);
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" className="secondary" onClick={onDismiss}>
          I have stored it
        </button>
      </div>
    </section>
  );
}
