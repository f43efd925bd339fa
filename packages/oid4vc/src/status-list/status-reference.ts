import { z } from "zod";

/**
 * The `status` claim of a referenced token (Token Status List §6.1): `status.status_list` names the
 * list (`uri`) and the token's index in it (`idx`). Other status mechanisms may sit beside it.
 */
export const ZStatusClaim = z.looseObject({
  status_list: z.looseObject({ idx: z.number().int().nonnegative(), uri: z.string().min(1) }).optional(),
});

/** Where a referenced token's status is kept. */
export interface StatusListReference {
  idx: number;
  uri: string;
}

/**
 * The status list entry a token's `status` claim points at: null when the claim is absent or names no
 * status list, "malformed" when it is there but unreadable.
 */
export function statusListReferenceOf(status: unknown): StatusListReference | null | "malformed" {
  if (status === undefined) return null;
  const parsed = ZStatusClaim.safeParse(status);
  if (!parsed.success) return "malformed";
  const list = parsed.data.status_list;
  return list ? { idx: list.idx, uri: list.uri } : null;
}
