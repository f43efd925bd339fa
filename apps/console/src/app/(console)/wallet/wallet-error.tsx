"use client";

/** A wallet step that failed: what the issuer or verifier said, announced to screen readers. */
export function WalletAlert({ error, title }: { error: unknown; title: string }) {
  if (!error) return null;
  return (
    <div className="alert alert-error" role="alert">
      <strong>{title}:</strong> {error instanceof Error ? error.message : String(error)}
    </div>
  );
}
