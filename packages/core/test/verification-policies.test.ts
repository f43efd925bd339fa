import { ZCreateVerificationPolicyRequest } from "@cred/contracts/verification-policies";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  reactivateVerificationPolicy,
  suspendVerificationPolicy,
} from "../src/verification-policies/change-verification-policy-status";
import { createVerificationPolicy } from "../src/verification-policies/create-verification-policy";
import { activeIssuerOf, domainErrorOf, openUseCaseWorld, type UseCaseWorld } from "./use-case-fixture";

let world: UseCaseWorld;
let issuer: Awaited<ReturnType<typeof activeIssuerOf>>;
let n = 0;

beforeAll(async () => {
  world = await openUseCaseWorld();
  issuer = await activeIssuerOf(world);
});
afterAll(() => world?.close());

/** A policy body asking for the issuer's credential type, trusting `trustedIssuers` (the issuer by default). */
const policy = (
  trustedIssuers: Record<string, string>[] = [{ issuerId: issuer.issuerId }],
  credential: Record<string, unknown> = {},
) => ({
  identifier: `policy-${++n}`,
  displayName: "Age check",
  credentials: [
    {
      id: "badge",
      credentialTypes: [issuer.credentialType],
      trustedIssuers,
      requiredClaims: [["given_name"]],
      ...credential,
    },
  ],
});

/** The use-case as VerificationPolicies_Create calls it: the input parsed by its zod schema first. */
const create = (body: Record<string, unknown>, scope = world.scope) =>
  createVerificationPolicy(world.db, scope, world.deps.config, ZCreateVerificationPolicyRequest.parse(body));

describe("createVerificationPolicy", () => {
  it("creates an active policy with the rules as given", async () => {
    const created = await create(policy());
    expect(created.status).toBe("active");
    expect(created.rules.credentials[0]!.trustedIssuers).toEqual([{ issuerId: issuer.issuerId }]);
  });

  it("ValidationFailed naming every unknown credential type and issuer of this environment", async () => {
    const error = await domainErrorOf(
      create(
        policy([{ issuerId: "iss_unknown" }], { credentialTypes: [issuer.credentialType, "urn:unknown"] }),
      ),
    );
    expect(error.code).toBe("ValidationFailed");
    expect(error.details).toEqual([
      expect.objectContaining({ code: "UnknownCredentialType", target: "credentials.0.credentialTypes.1" }),
      expect.objectContaining({ code: "UnknownIssuer", target: "credentials.0.trustedIssuers.0.issuerId" }),
    ]);
  });

  it("sees neither the types nor the issuers of another environment", async () => {
    const error = await domainErrorOf(create(policy(), { ...world.scope, environment: "production" }));
    expect(error.details?.map((d) => d.code)).toEqual(["UnknownCredentialType", "UnknownIssuer"]);
  });

  it("takes any credential type from an external issuer, whose JWKS URL must be public (UrlNotAllowed)", async () => {
    const external = (jwksUri: string) => policy([{ jwksUri }], { credentialTypes: ["urn:external:badge"] });
    await expect(create(external("https://issuer.example/jwks.json"))).resolves.toMatchObject({
      status: "active",
    });
    const error = await domainErrorOf(create(external("https://10.0.0.1/jwks.json")));
    expect(error.code).toBe("ValidationFailed");
    expect(error.details).toEqual([
      expect.objectContaining({ code: "UrlNotAllowed", target: "credentials.0.trustedIssuers.0.jwksUri" }),
    ]);
  });

  it("AlreadyExists for a second policy with the same identifier", async () => {
    const body = policy();
    await create(body);
    const error = await domainErrorOf(create(body));
    expect(error.code).toBe("AlreadyExists");
    expect(error.details?.[0]?.target).toBe("identifier");
  });
});

describe("suspendVerificationPolicy and reactivateVerificationPolicy", () => {
  it("active → suspended → active, one event each; a repeat is InvalidState; an unknown policy is NotFound", async () => {
    const { identifier } = await create(policy());
    expect((await suspendVerificationPolicy(world.db, world.scope, identifier)).status).toBe("suspended");
    expect((await domainErrorOf(suspendVerificationPolicy(world.db, world.scope, identifier))).code).toBe(
      "InvalidState",
    );
    expect((await reactivateVerificationPolicy(world.db, world.scope, identifier)).status).toBe("active");
    expect((await domainErrorOf(reactivateVerificationPolicy(world.db, world.scope, identifier))).code).toBe(
      "InvalidState",
    );
    const events = await world.db.prisma.outboxEvent.findMany({
      where: { tenantId: world.scope.tenantId, type: { startsWith: "verification_policy." } },
    });
    const mine = events.filter((e) => (e.payload as { identifier?: string }).identifier === identifier);
    expect(mine.map((e) => e.type).sort()).toEqual([
      "verification_policy.reactivated",
      "verification_policy.suspended",
    ]);
    expect(
      (await domainErrorOf(suspendVerificationPolicy(world.db, world.scope, "no-such-policy"))).code,
    ).toBe("NotFound");
  });
});
