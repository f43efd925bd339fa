// The Credo peer's agent: Credo 0.6 (@credo-ts/core + @credo-ts/openid4vc) as its maintainers ship it,
// with two substitutions that keep Askar's native binary out of the bench: records live in an in-memory
// StorageService (./storage.ts) and keys in @credo-ts/node's NodeKeyManagementService (node:crypto) over
// its in-memory key storage. Everything else — HTTP routes, OpenID4VCI/OpenID4VP handling, SD-JWT VC
// signing and verification, X.509 — is Credo's own code path. Used by ./issuer.ts and ./verifier.ts.
import {
  Agent,
  type DependencyManager,
  InjectionSymbols,
  Kms,
  type Module,
  X509Module,
  type X509ModuleConfigOptions,
} from "@credo-ts/core";
import {
  agentDependencies,
  NodeInMemoryKeyManagementStorage,
  NodeKeyManagementService,
} from "@credo-ts/node";
import { OpenId4VcModule, type OpenId4VcModuleConfigOptions } from "@credo-ts/openid4vc";
import type { Express } from "express";
import { InMemoryStorageService } from "./storage";

/** Registers the in-memory StorageService, which Credo otherwise gets from Askar or Drizzle. */
class InMemoryStorageModule implements Module {
  register(dependencyManager: DependencyManager) {
    dependencyManager.registerInstance(InjectionSymbols.StorageService, new InMemoryStorageService());
  }
}

export async function createCredoAgent(options: {
  app: Express;
  openid4vc: Omit<OpenId4VcModuleConfigOptions, "app">;
  x509?: X509ModuleConfigOptions;
}) {
  const agent = new Agent({
    // The bench runs on http://127.0.0.1; Credo refuses plain-HTTP issuer and verifier URLs otherwise.
    // A fresh in-memory store has no storage version record, which Credo reads as version 0.1; updating
    // an empty store to the current version only writes that record.
    config: { allowInsecureHttpUrls: true, autoUpdateStorageOnStartup: true },
    dependencies: agentDependencies,
    modules: {
      storage: new InMemoryStorageModule(),
      kms: new Kms.KeyManagementModule({
        backends: [new NodeKeyManagementService(new NodeInMemoryKeyManagementStorage())],
      }),
      x509: new X509Module(options.x509),
      openid4vc: new OpenId4VcModule({ app: options.app, ...options.openid4vc }),
    },
  });
  await agent.initialize();
  return agent;
}

/** A P-256 key in the agent's KMS and a self-signed certificate for it, with these subject alternative names. */
export async function selfSignedCertificate(
  agent: Agent,
  commonName: string,
  names: { type: "url" | "dns"; value: string }[],
) {
  const { keyId, publicJwk } = await agent.kms.createKey({ type: { kty: "EC", crv: "P-256" } });
  const authorityKey = Kms.PublicJwk.fromPublicJwk(publicJwk);
  const certificate = await agent.x509.createCertificate({
    authorityKey,
    issuer: { commonName },
    extensions: { subjectAlternativeName: { name: names } },
  });
  // Tells Credo which KMS key signs for this certificate.
  certificate.keyId = keyId;
  return certificate;
}
