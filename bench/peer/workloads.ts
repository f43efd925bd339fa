// The same issuance flow as ours, against the peer: create → offer → token → nonce → credential.
import { createProofJwt, type Es256KeyPair } from "@cred/oid4vc";
import type { Client } from "../http";
import { CLAIMS } from "../ours";
import type { Workload } from "../workload";
import { holderKeys } from "../workloads";
import type { PeerTarget } from "./start";

const PRE_AUTH = "urn:ietf:params:oauth:grant-type:pre-authorized_code";

export function peerWorkload(name: string, target: PeerTarget, client: Client): Workload {
  if (name !== "issuance") throw new Error(`the peer has no workload ${name}`);
  let keys: Es256KeyPair[] = [];
  let n = 0;
  return {
    async prepare() {
      keys = await holderKeys(64);
    },
    async iteration(step) {
      const tx = await step("create", () =>
        client.json("POST", `${target.baseUrl}/transactions`, { body: { claims: CLAIMS }, expect: 201 }),
      );
      const offerUri = new URL(tx.credentialOffer).searchParams.get("credential_offer_uri")!;
      const offer = await step("offer", () => client.json("GET", offerUri));
      const token = await step("token", () =>
        client.json("POST", `${target.baseUrl}/token`, {
          form: {
            grant_type: PRE_AUTH,
            "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
          },
        }),
      );
      const { c_nonce } = await step("nonce", () => client.json("POST", `${target.baseUrl}/nonce`));
      const key = keys[n++ % keys.length]!;
      const proof = await step("client: sign proof", () =>
        createProofJwt({
          privateKey: key.privateKey,
          publicJwk: key.publicJwk,
          audience: target.baseUrl,
          nonce: c_nonce,
          iat: Math.floor(Date.now() / 1000),
        }),
      );
      const res = await step("credential", () =>
        client.json("POST", `${target.baseUrl}/credential`, {
          headers: { authorization: `Bearer ${token.access_token}` },
          body: { credential_configuration_id: "employee", proofs: { jwt: [proof] } },
        }),
      );
      if (typeof res.credentials?.[0]?.credential !== "string") throw new Error("no credential");
    },
  };
}
