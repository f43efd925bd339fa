import { ZCreateIssuanceTransactionRequest } from "@cred/contracts/issuance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIssuanceTransaction } from "../src/issuance/create-issuance-transaction";
import type { Principal } from "../src/shared/principal";
import { activeIssuerOf, domainErrorOf, openUseCaseWorld, type UseCaseWorld } from "./use-case-fixture";

let world: UseCaseWorld;
let issuer: Awaited<ReturnType<typeof activeIssuerOf>>;

beforeAll(async () => {
  world = await openUseCaseWorld();
  issuer = await activeIssuerOf(world);
});
afterAll(() => world?.close());

/** The use-case as IssuanceTransactions_Create calls it: the input parsed by its zod schema first. */
const create = (
  input: Record<string, unknown>,
  principal: Principal = world.principal(),
  options = { requireExplicitIssuer: false },
) =>
  createIssuanceTransaction(
    world.deps,
    world.db,
    principal,
    ZCreateIssuanceTransactionRequest.parse(input),
    options,
  );

const valid = (extra: Record<string, unknown> = {}) => ({
  credentialConfiguration: issuer.configuration,
  issuerId: issuer.issuerId,
  claims: { given_name: "Erika", employee_number: 4711 },
  ...extra,
});

describe("createIssuanceTransaction", () => {
  it("creates a pending transaction with a pre-authorized offer and an outbox event without claims", async () => {
    const tx = await create(valid());
    expect(tx.status).toBe("pending");
    expect(tx.credentialOffer).toMatch(/^openid-credential-offer:\/\//);
    const events = await world.db.prisma.outboxEvent.findMany({
      where: { type: "issuance.transaction.created", tenantId: world.scope.tenantId },
    });
    const event = events.find((e) => JSON.stringify(e.payload).includes(tx.id));
    expect(event).toBeDefined();
    expect(JSON.stringify(event!.payload)).not.toContain("Erika");
  });

  it("IssuerRequired without issuerId for an unbound key, and for Credentials_Issue even for a bound one", async () => {
    expect((await domainErrorOf(create(valid({ issuerId: undefined })))).code).toBe("IssuerRequired");
    const bound = world.principal({ issuerId: issuer.issuerId });
    await expect(create(valid({ issuerId: undefined }), bound)).resolves.toMatchObject({
      status: "pending",
    });
    const explicit = create(valid({ issuerId: undefined }), bound, { requireExplicitIssuer: true });
    expect((await domainErrorOf(explicit)).code).toBe("IssuerRequired");
  });

  it("IssuerBindingMismatch when a bound key names another issuer", async () => {
    const other = await activeIssuerOf(world);
    const bound = world.principal({ issuerId: other.issuerId });
    const error = await domainErrorOf(create(valid(), bound));
    expect(error.code).toBe("IssuerBindingMismatch");
    expect(error.details?.[0]?.target).toBe("issuerId");
  });

  it("NotFound for an unknown configuration, and for one of another environment", async () => {
    const unknown = await domainErrorOf(create(valid({ credentialConfiguration: "no-such-configuration" })));
    expect(unknown.code).toBe("NotFound");
    const production = await domainErrorOf(create(valid(), world.principal({ environment: "production" })));
    expect(production.code).toBe("NotFound");
  });

  it("IssuerNotActive for an issuer that was never activated", async () => {
    const draft = await activeIssuerOf(world, {}, { activate: false });
    const error = await domainErrorOf(
      create(valid({ credentialConfiguration: draft.configuration, issuerId: draft.issuerId })),
    );
    expect(error.code).toBe("IssuerNotActive");
  });

  it("IssuerNotAuthorised for a configuration granted to another issuer", async () => {
    const other = await activeIssuerOf(world);
    const error = await domainErrorOf(create(valid({ issuerId: other.issuerId })));
    expect(error.code).toBe("IssuerNotAuthorised");
  });

  it("400 UnknownClaim naming the path of a claim the configuration does not declare", async () => {
    const error = await domainErrorOf(create(valid({ claims: { given_name: "Erika", nickname: "Eri" } })));
    expect(error.status).toBe(400);
    expect(error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: "UnknownClaim", target: "claims.nickname" })]),
    );
  });

  it("ValidationFailed (NotApplicable) for options that do not fit the delivery", async () => {
    const deferredWithClaims = await domainErrorOf(create(valid({ delivery: { deferred: true } })));
    expect(deferredWithClaims.code).toBe("ValidationFailed");
    expect(deferredWithClaims.details?.[0]).toMatchObject({ code: "NotApplicable", target: "claims" });

    const waitWithoutDeferred = await domainErrorOf(create(valid({ delivery: { deferredWaitSeconds: 60 } })));
    expect(waitWithoutDeferred.details?.[0]).toMatchObject({
      code: "NotApplicable",
      target: "delivery.deferredWaitSeconds",
    });

    const txCodeWithCodeFlow = await domainErrorOf(
      create(
        valid({
          delivery: { grant: "authorizationCode", txCode: { inputMode: "numeric", length: 6 } },
        }),
      ),
    );
    expect(txCodeWithCodeFlow.details?.[0]).toMatchObject({
      code: "NotApplicable",
      target: "delivery.txCode",
    });
  });
});
