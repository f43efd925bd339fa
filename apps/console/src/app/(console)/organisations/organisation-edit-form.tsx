"use client";
import { ZUpdateOrganisationRequest, type zOrganisation } from "@cred/contracts/organisations";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { z } from "zod";
import { CountryField } from "../../../components/country-field";
import { EditFormFooter } from "../../../components/edit-form-footer";
import { TextField } from "../../../components/form-fields";
import { type FormIssue, formIssuesOf } from "../../../components/form-issues";
import { useRefresh } from "../../../lib/refresh";
import { useTRPC } from "../../../lib/trpc";

type Organisation = z.infer<typeof zOrganisation>;

/**
 * Organisations_Update: only what changed is sent (JSON merge patch); an emptied legal name or country
 * is cleared (null). The country is picked by name (its ISO 3166-1 alpha-2 code is sent); the contract's
 * schema checks the patch first.
 */
export function OrganisationEditForm({
  organisation,
  onDone,
}: {
  organisation: Organisation;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const refresh = useRefresh("organisations", "issuers");
  const update = useMutation(trpc.organisations.update.mutationOptions({ onSuccess: refresh }));
  const [displayName, setDisplayName] = useState(organisation.displayName);
  const [legalName, setLegalName] = useState(organisation.legalName ?? "");
  const [country, setCountry] = useState(organisation.country ?? "");
  const [issues, setIssues] = useState<FormIssue[]>([]);

  const changes = {
    ...(displayName !== organisation.displayName && { displayName }),
    ...(legalName !== (organisation.legalName ?? "") && { legalName: legalName || null }),
    ...(country !== (organisation.country ?? "") && { country: country || null }),
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = ZUpdateOrganisationRequest.safeParse({
      organisationReference: organisation.reference,
      ...changes,
    });
    if (!parsed.success) {
      setIssues(formIssuesOf(parsed.error.issues));
      return;
    }
    setIssues([]);
    update.mutate(parsed.data);
  };

  return (
    <form onSubmit={submit} className="card" aria-labelledby="edit-org" noValidate>
      <h2 id="edit-org">
        Edit organisation <code>{organisation.reference}</code>
      </h2>
      <p className="hint">The reference is the organisation&apos;s key and cannot change.</p>
      <div className="grid">
        <TextField label="Display name" required value={displayName} onChange={setDisplayName} />
        <TextField label="Legal name (optional)" value={legalName} onChange={setLegalName} />
        <CountryField label="Country (optional)" value={country} onChange={setCountry} />
      </div>
      <EditFormFooter
        noun="organisation"
        issues={issues}
        update={update}
        changed={Object.keys(changes).length > 0}
        saved={update.isSuccess && <>Organisation {update.data.data.reference} updated.</>}
        onDone={onDone}
      />
    </form>
  );
}
