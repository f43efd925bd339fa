"use client";
import type { TCreateVerificationPolicyRequest } from "@cred/contracts/verification-policies";
import { ChoiceField } from "../../../components/form-fields";

export type ClientIdPrefix = TCreateVerificationPolicyRequest["clientIdPrefix"];
export type DidMethod = TCreateVerificationPolicyRequest["didMethod"];

const PREFIX_CHOICES: { value: ClientIdPrefix; label: string }[] = [
  { value: "x509_hash", label: "x509_hash: hash of the verifier certificate (HAIP)" },
  { value: "x509_san_dns", label: "x509_san_dns: the certificate's DNS name (the public host)" },
  // No "identifier" in these labels: the form's other fields are found by that word.
  { value: "decentralized_identifier", label: "DID: a did:jwk or did:web of the verifier key" },
  {
    value: "redirect_uri",
    label: "redirect_uri: unsigned request, low assurance (response mode direct_post)",
  },
];

const DID_CHOICES: { value: DidMethod; label: string }[] = [
  { value: "jwk", label: "did:jwk of the verifier key (a new key is a new DID)" },
  { value: "web", label: "did:web served by the platform (survives a certificate replacement)" },
];

/**
 * The client identifier prefix the wallet sees (`clientIdPrefix`, docs/api/verification-policies.md) and,
 * for `decentralized_identifier`, its DID method (`didMethod`).
 */
export function ClientIdFields({
  prefix,
  didMethod,
  onChange,
}: {
  prefix: ClientIdPrefix;
  didMethod: DidMethod;
  onChange: (prefix: ClientIdPrefix, didMethod: DidMethod) => void;
}) {
  return (
    <div className="grid">
      <ChoiceField
        label="Client ID prefix"
        value={prefix}
        onChange={(value) =>
          onChange(value as ClientIdPrefix, value === "decentralized_identifier" ? didMethod : "jwk")
        }
        choices={PREFIX_CHOICES}
      />
      {prefix === "decentralized_identifier" && (
        <ChoiceField
          label="DID method"
          value={didMethod}
          onChange={(value) => onChange(prefix, value as DidMethod)}
          choices={DID_CHOICES}
        />
      )}
    </div>
  );
}

/** redirect_uri sends the request unsigned by value, which needs the unencrypted response mode (§5.9.3). */
export const responseModeFor = (prefix: ClientIdPrefix) =>
  prefix === "redirect_uri" ? ("direct_post" as const) : ("direct_post.jwt" as const);
