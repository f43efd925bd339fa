"use client";
import type { TIssuer } from "@cred/contracts/issuers";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ChoiceField, TextField } from "../../../../components/form-fields";
import { ErrorAlert, Success } from "../../../../components/status";
import { useRefresh } from "../../../../lib/refresh";
import { useAllResourceItems } from "../../../../lib/resource-lists";
import { useTRPC } from "../../../../lib/trpc";
import {
  IssuerKeyCustodyFields,
  KeyCustodySummary,
  keyCustodyDraftOf,
  keyCustodyOf,
} from "../key-custody-field";

type EncryptionChoice = "off" | "optional" | "required";

function encryptionChoiceOf(issuer: TIssuer): EncryptionChoice {
  if (!issuer.credentialEncryption) return "off";
  return issuer.credentialEncryption.required ? "required" : "optional";
}

/**
 * The issuer's organisation, name, description and logo (Issuers_Update). Only what changed is sent; an emptied
 * description or logo is cleared (null). The server's schema decides what is valid and says why not.
 */
export function IssuerDetailsForm({ issuer }: { issuer: TIssuer }) {
  const trpc = useTRPC();
  const refresh = useRefresh("issuers", "dashboard");
  const update = useMutation(trpc.issuers.update.mutationOptions({ onSuccess: refresh }));
  const rotateEncryption = useMutation(
    trpc.issuers.rotateCredentialEncryptionKey.mutationOptions({ onSuccess: refresh }),
  );
  const organisations = useAllResourceItems("organisations");
  const [organisationReference, setOrganisation] = useState(issuer.organisationReference);
  const [displayName, setDisplayName] = useState(issuer.displayName);
  const [description, setDescription] = useState(issuer.description ?? "");
  const [logoUri, setLogoUri] = useState(issuer.logoUri ?? "");
  const [requireDpop, setRequireDpop] = useState(issuer.requireDpop);
  const [requireDpopNonce, setRequireDpopNonce] = useState(issuer.requireDpopNonce);
  const [pageUrl, setPageUrl] = useState(issuer.authorizationPage?.url ?? "");
  const savedEncryption = encryptionChoiceOf(issuer);
  const [encryption, setEncryption] = useState(savedEncryption);
  const savedCustody = JSON.stringify(keyCustodyOf(keyCustodyDraftOf(issuer.keyCustody)));
  const [keyCustody, setKeyCustody] = useState(keyCustodyDraftOf(issuer.keyCustody));
  const [separateStatusListKey, setSeparateStatusListKey] = useState(issuer.statusListSigning.separateKey);
  const listedRedirectUris = (issuer.allowedRedirectUris ?? []).join("\n");
  const [redirectUris, setRedirectUris] = useState(listedRedirectUris);
  const redirectUriList = redirectUris
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

  const changes = {
    ...(organisationReference !== issuer.organisationReference && { organisationReference }),
    ...(displayName !== issuer.displayName && { displayName }),
    ...(description !== (issuer.description ?? "") && { description: description || null }),
    ...(logoUri !== (issuer.logoUri ?? "") && { logoUri: logoUri || null }),
    ...(requireDpop !== issuer.requireDpop && { requireDpop }),
    ...(requireDpopNonce !== issuer.requireDpopNonce && { requireDpopNonce }),
    ...(pageUrl !== (issuer.authorizationPage?.url ?? "") && {
      authorizationPage: pageUrl ? { url: pageUrl } : null,
    }),
    ...(encryption !== savedEncryption && {
      credentialEncryption: encryption === "off" ? null : { required: encryption === "required" },
    }),
    ...(JSON.stringify(keyCustodyOf(keyCustody)) !== savedCustody && {
      keyCustody: keyCustodyOf(keyCustody),
    }),
    ...(separateStatusListKey !== issuer.statusListSigning.separateKey && {
      statusListSigning: { separateKey: separateStatusListKey },
    }),
    ...(redirectUriList.join("\n") !== listedRedirectUris && {
      allowedRedirectUris: redirectUriList.length > 0 ? redirectUriList : null,
    }),
  };
  const changed = Object.keys(changes).length > 0;
  const save = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({ issuerId: issuer.id, ...changes });
  };

  return (
    <form onSubmit={save} className="card" aria-labelledby="details-title">
      <h2 id="details-title">Issuer details</h2>
      <div className="grid">
        <ChoiceField
          label="Organisation"
          value={organisationReference}
          onChange={setOrganisation}
          choices={(
            organisations.data?.items ?? [{ reference: issuer.organisationReference, displayName: "" }]
          ).map((o) => ({
            value: o.reference,
            label: o.displayName ? `${o.displayName} (${o.reference})` : o.reference,
          }))}
        />
        <TextField label="Display name" required value={displayName} onChange={setDisplayName} />
        <TextField label="Description (optional)" value={description} onChange={setDescription} />
        <TextField
          label="Logo URL (optional, https)"
          type="url"
          value={logoUri}
          placeholder="https://example.com/logo.png"
          onChange={setLogoUri}
        />
        <TextField
          label="Authorization page (optional, https): where the code flow sends people to sign in and consent"
          type="url"
          value={pageUrl}
          placeholder="https://login.example.com/credential-consent"
          onChange={setPageUrl}
        />
        <ChoiceField
          label="Encrypted credential requests and responses (OpenID4VCI §10)"
          value={encryption}
          onChange={(value) => setEncryption(value as EncryptionChoice)}
          choices={[
            { value: "off", label: "Not offered" },
            { value: "optional", label: "Offered: wallets may encrypt" },
            { value: "required", label: "Required: every request and response encrypted" },
          ]}
        />
        <IssuerKeyCustodyFields value={keyCustody} onChange={setKeyCustody} />
      </div>
      <p className="hint" data-testid="key-custody-hint">
        Key custody applies to keys made from now on: the current signing key moves with the next rotation,
        the encryption key with the next encryption key rotation. Keys are made now in:
      </p>
      <KeyCustodySummary custody={issuer.keyCustody} />
      <label className="inline">
        <input
          type="checkbox"
          checked={separateStatusListKey}
          onChange={(e) => setSeparateStatusListKey(e.target.checked)}
        />
        Sign status lists with a key of their own (made in the custody chosen for it above; published in the
        JWKS)
      </label>
      {issuer.credentialEncryption && (
        <div className="hint" data-testid="encryption-key">
          <p>
            Wallets encrypt credential requests to the ECDH-ES key{" "}
            <code>{String(issuer.credentialEncryption.publicJwk.kid)}</code>, published in the issuer
            metadata. Turning encryption off discards it.
            {issuer.credentialEncryption.previousKey && (
              <>
                {" "}
                The replaced key <code>{String(issuer.credentialEncryption.previousKey.publicJwk.kid)}</code>{" "}
                still decrypts until{" "}
                {new Date(issuer.credentialEncryption.previousKey.acceptedUntil).toLocaleString()}.
              </>
            )}
          </p>
          <button
            type="button"
            className="secondary small"
            disabled={rotateEncryption.isPending}
            onClick={() => {
              if (
                window.confirm(
                  "Rotate the encryption key? Wallets get the new key from the metadata; the current one still decrypts for a day, and a key replaced before stops now.",
                )
              ) {
                rotateEncryption.mutate({ issuerId: issuer.id, overlapSeconds: 86_400 });
              }
            }}
          >
            Rotate encryption key
          </button>
          <ErrorAlert error={rotateEncryption.error} title="Could not rotate the encryption key" />
        </div>
      )}
      <label>
        Allowed wallet redirect URIs (optional, one per line): the code flow takes only these, compared
        exactly; empty takes any
        <textarea
          rows={3}
          value={redirectUris}
          placeholder={"https://wallet.example.org/callback\neudi-openid4ci://authorize"}
          onChange={(e) => setRedirectUris(e.target.value)}
        />
      </label>
      <label className="inline">
        <input type="checkbox" checked={requireDpop} onChange={(e) => setRequireDpop(e.target.checked)} />
        Require DPoP: wallets must bind their access tokens to a key (HAIP); wallets without DPoP cannot
        redeem offers
      </label>
      <label className="inline">
        <input
          type="checkbox"
          checked={requireDpopNonce}
          onChange={(e) => setRequireDpopNonce(e.target.checked)}
        />
        Require DPoP nonces: every DPoP proof must carry a nonce this issuer handed out (DPoP-Nonce), so
        proofs cannot be made ahead of time
      </label>
      <ErrorAlert error={update.error} title="Could not save the issuer" />
      {update.isSuccess && !changed && <Success>Issuer details saved.</Success>}
      <button type="submit" className="secondary" disabled={update.isPending || !changed}>
        Save details
      </button>
    </form>
  );
}
