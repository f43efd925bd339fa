import { compactVerify, decodeProtectedHeader, importJWK, importX509, type JWK } from "jose";
import { asObject, getJson, WalletError } from "./http";
import { wellKnown } from "./offer";

const pem = (der: string) =>
  `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)?.join("\n") ?? ""}\n-----END CERTIFICATE-----`;

/**
 * Checks an issuer-signed JWS (a credential's issuer JWT, a status list token) as a wallet does: by the
 * `x5c` leaf in its header, else by the key `kid` names in the issuer's JWT VC Issuer Metadata
 * (`/.well-known/jwt-vc-issuer`, SD-JWT VC §5). Returns how it was checked; throws when the signature
 * does not verify. No trust list: the sandbox wallet shows who signed, it does not decide whom to trust.
 */
export async function verifyIssuerSignature(jws: string, issuer: string): Promise<"x5c" | "jwks"> {
  const header = decodeProtectedHeader(jws);
  if (header.alg !== "ES256") throw new WalletError(`Unexpected signature algorithm ${String(header.alg)}.`);
  try {
    if (Array.isArray(header.x5c) && typeof header.x5c[0] === "string") {
      await compactVerify(jws, await importX509(pem(header.x5c[0]), "ES256"));
      return "x5c";
    }
    const metadata = await getJson(
      "Fetching the issuer's JWT VC metadata",
      wellKnown("jwt-vc-issuer", issuer),
    );
    const jwks = metadata.jwks
      ? asObject(metadata.jwks)
      : await getJson("Fetching the issuer's keys", String(metadata.jwks_uri));
    const keys = (Array.isArray(jwks.keys) ? jwks.keys : []) as JWK[];
    const key = keys.find((k) => k.kid === header.kid) ?? (keys.length === 1 ? keys[0] : undefined);
    if (!key) throw new WalletError("The issuer publishes no key for this signature.");
    await compactVerify(jws, await importJWK(key, "ES256"));
    return "jwks";
  } catch (error) {
    if (error instanceof WalletError) throw error;
    throw new WalletError(`The issuer's signature does not verify (${(error as Error).message}).`);
  }
}
