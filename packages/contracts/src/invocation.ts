import { z } from "zod";

/** How a link invokes the wallet: the protocol's own custom URL scheme, or HAIP's. */
export const INVOCATIONS = ["openid", "haip"] as const;
export type Invocation = (typeof INVOCATIONS)[number];

/** The request member that picks the link's scheme; one definition for offers and presentation requests. */
export const zInvocation = (openid: string, haip: string) =>
  z
    .enum(INVOCATIONS)
    .default("openid")
    .meta({
      description: `The custom URL scheme of the link that invokes the wallet: \`openid\` (default) for ${openid}, \`haip\` for ${haip}, which wallets built for the HAIP profile register. The link's parameters are the same.`,
      example: "openid",
    });

/** The link scheme of each protocol for an invocation. */
export const INVOCATION_SCHEMES = {
  offer: { openid: "openid-credential-offer://", haip: "haip-vci://" },
  presentation: { openid: "openid4vp://", haip: "haip-vp://" },
} as const satisfies Record<string, Record<Invocation, string>>;
