/**
 * Secrets replaced by `Webhooks_RotateSecret` that deliveries are still signed with until their overlap
 * ends (stored sealed, newest first, in `WebhookSubscription.previousSecrets`).
 */
// A type alias, not an interface: Prisma's JSON input type needs the implicit index signature.
export type PreviousSecret = {
  /** The secret sealed to the subscription id, as `secretCipher` was. */
  cipher: string;
  /** ISO time the overlap ends. */
  expiresAt: string;
};

/** More would make every delivery carry a long tail of signatures; older overlaps end early beyond it. */
export const MAX_PREVIOUS_SECRETS = 5;

/** The stored entries whose overlap has not ended at `now`; anything malformed is left out. */
export function livePreviousSecrets(stored: unknown, now: Date): PreviousSecret[] {
  if (!Array.isArray(stored)) return [];
  return stored.filter(
    (entry): entry is PreviousSecret =>
      typeof entry?.cipher === "string" &&
      typeof entry?.expiresAt === "string" &&
      Date.parse(entry.expiresAt) > now.getTime(),
  );
}

/**
 * The list after a rotation replaced `replacedCipher`: it joins the live ones for `overlapSeconds`.
 * An overlap of 0 ends every earlier secret at once too (the rotation answers a leaked secret).
 */
export function previousSecretsAfterRotation(
  stored: unknown,
  replacedCipher: string,
  overlapSeconds: number,
  now: Date,
): PreviousSecret[] {
  if (overlapSeconds === 0) return [];
  const replaced = {
    cipher: replacedCipher,
    expiresAt: new Date(now.getTime() + overlapSeconds * 1000).toISOString(),
  };
  return [replaced, ...livePreviousSecrets(stored, now)].slice(0, MAX_PREVIOUS_SECRETS);
}
