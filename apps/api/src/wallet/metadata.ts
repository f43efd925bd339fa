import type { AppDeps } from "@cred/core";
import {
  authorizationServerMetadata,
  credentialIssuerMetadata,
  jwtVcIssuerMetadata,
  signedCredentialIssuerMetadata,
} from "@cred/core/wallet";
import type { FastifyInstance } from "fastify";
import { prefersJwt } from "./media-ranges";
import { withIssuer } from "./wallet-issuer";

/**
 * The `.well-known` documents of every issuer, with path insertion after its credential issuer identifier
 * `<base>/issuers/<issuerId>`: credential issuer metadata (OpenID4VCI §12.2), authorization server
 * metadata (RFC 8414) and JWT VC issuer metadata (SD-JWT VC §5).
 */
export function registerMetadata(app: FastifyInstance, deps: AppDeps) {
  // OpenID4VCI §12.2.2: JSON, or signed (application/jwt) for a wallet that prefers it, where the issuer
  // has a signing certificate to put in x5c (without one, no wallet could validate the signature).
  const issuerMetadata = withIssuer(deps, async (issuer, request, reply, { database }) => {
    const db = database.root;
    reply.header("Vary", "Accept");
    const jwt = prefersJwt(request.headers.accept)
      ? await signedCredentialIssuerMetadata({ ...deps, db }, issuer)
      : null;
    if (jwt === null) return credentialIssuerMetadata(db, deps.config, issuer);
    return reply.type("application/jwt").send(jwt);
  });
  app.get("/.well-known/openid-credential-issuer/issuers/:issuerId", issuerMetadata);
  // Some wallets still append the well-known suffix (pre-1.0 drafts); serve the same document there.
  app.get("/issuers/:issuerId/.well-known/openid-credential-issuer", issuerMetadata);

  const asMetadata = withIssuer(deps, async (issuer) => authorizationServerMetadata(deps.config, issuer));
  app.get("/.well-known/oauth-authorization-server/issuers/:issuerId", asMetadata);
  app.get("/issuers/:issuerId/.well-known/oauth-authorization-server", asMetadata);

  app.get(
    "/.well-known/jwt-vc-issuer/issuers/:issuerId",
    withIssuer(deps, async (issuer) => jwtVcIssuerMetadata(deps.config, issuer)),
  );
}
