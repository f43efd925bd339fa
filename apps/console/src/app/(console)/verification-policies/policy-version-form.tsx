"use client";
import {
  type TVerificationPolicy,
  ZCreateVerificationPolicyVersionRequest,
} from "@cred/contracts/verification-policies";
import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { SubmitButton, TextField } from "../../../components/form-fields";
import { type FormIssue, FormIssues, formIssuesOf } from "../../../components/form-issues";
import { Badge, ErrorAlert, Loading, Success } from "../../../components/status";
import { useRefresh } from "../../../lib/refresh";
import { useTRPC } from "../../../lib/trpc";

/** Changing a policy: its versions (activate an earlier one to roll back) and the form for the next one. */
export function PolicyVersions({ identifier, onDone }: { identifier: string; onDone: () => void }) {
  const trpc = useTRPC();
  const policy = useQuery(trpc.verificationPolicies.get.queryOptions({ policyIdentifier: identifier }));
  const refresh = useRefresh("verificationPolicies");
  const [notice, setNotice] = useState<string | null>(null);
  const changed = async (version: number) => {
    setNotice(`Version ${version} is now active.`);
    await refresh();
  };
  const activate = useMutation(
    trpc.verificationPolicies.activateVersion.mutationOptions({
      onSuccess: (r) => changed(r.data.activeVersion),
    }),
  );
  if (policy.isPending) return <Loading />;
  if (!policy.data) return <ErrorAlert error={policy.error} title="Could not load the policy" />;
  const current = policy.data.data;
  return (
    <section className="card" aria-labelledby="policy-versions">
      <h2 id="policy-versions">
        Versions of <code>{current.identifier}</code>
      </h2>
      <p className="hint">
        A change makes a new version, active at once: verifications started from then on run under it, those
        started earlier keep the version they were started with.
      </p>
      <table>
        <caption className="visually-hidden">Versions</caption>
        <thead>
          <tr>
            <th>Version</th>
            <th>Status</th>
            <th>Reason</th>
            <th>Created</th>
            <th>
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {current.versions.map((v) => (
            <tr key={v.version} data-testid={`policy-version-${v.version}`}>
              <td>{v.version}</td>
              <td>
                <Badge value={v.status} />
              </td>
              <td>{v.reason ?? "—"}</td>
              <td>{new Date(v.createdAt).toLocaleString()}</td>
              <td>
                {v.status !== "active" && (
                  <button
                    type="button"
                    className="secondary small"
                    disabled={activate.isPending}
                    onClick={() =>
                      activate.mutate({ policyIdentifier: current.identifier, version: v.version })
                    }
                  >
                    Activate version {v.version}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorAlert error={activate.error} title="Could not activate the version" />
      {notice && <Success>{notice}</Success>}
      <NewPolicyVersionForm
        key={current.activeVersion}
        policy={current}
        onCreated={changed}
        onDone={onDone}
      />
    </section>
  );
}

/**
 * The next version's whole content, starting from the active one's: display name, purpose and the rules
 * as JSON (every rule the API has, also those the create form does not offer). The contract's schema
 * checks it before it is sent, e.g. a policy that asks for no claims.
 */
function NewPolicyVersionForm({
  policy,
  onCreated,
  onDone,
}: {
  policy: TVerificationPolicy;
  onCreated: (version: number) => Promise<void>;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const create = useMutation(
    trpc.verificationPolicies.createVersion.mutationOptions({
      onSuccess: (r) => onCreated(r.data.activeVersion),
    }),
  );
  const [displayName, setDisplayName] = useState(policy.displayName);
  const [purpose, setPurpose] = useState(policy.purpose ?? "");
  const [rules, setRules] = useState(() => JSON.stringify(policy.rules, null, 2));
  const [reason, setReason] = useState("");
  const [issues, setIssues] = useState<FormIssue[]>([]);
  const next = Math.max(...policy.versions.map((v) => v.version)) + 1;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    let parsedRules: unknown;
    try {
      parsedRules = JSON.parse(rules);
    } catch (error) {
      setIssues([{ target: "rules", message: `Not valid JSON: ${(error as Error).message}` }]);
      return;
    }
    if (typeof parsedRules !== "object" || parsedRules === null || Array.isArray(parsedRules)) {
      setIssues([{ target: "rules", message: "Give the rules as a JSON object." }]);
      return;
    }
    const parsed = ZCreateVerificationPolicyVersionRequest.safeParse({
      ...parsedRules,
      policyIdentifier: policy.identifier,
      displayName,
      purpose: purpose || null,
      ...(reason.trim() ? { reason } : {}),
    });
    if (!parsed.success) {
      setIssues(formIssuesOf(parsed.error.issues));
      return;
    }
    setIssues([]);
    create.mutate(parsed.data);
  };

  return (
    <form onSubmit={submit} aria-labelledby="new-policy-version" noValidate>
      <h3 id="new-policy-version">Create version {next}</h3>
      <div className="grid">
        <TextField label="Display name" required value={displayName} onChange={setDisplayName} />
        <TextField label="Purpose (optional)" value={purpose} onChange={setPurpose} />
        <TextField label="Reason for the change (optional)" value={reason} onChange={setReason} />
      </div>
      <label>
        Rules (JSON): credentials with their requiredClaims and optionalClaims, trust, response mode, …
        <textarea rows={16} spellCheck={false} value={rules} onChange={(e) => setRules(e.target.value)} />
      </label>
      <FormIssues issues={issues} title="Fix the new version first" />
      <ErrorAlert error={create.error} title="Could not create the version" />
      <div className="actions">
        <SubmitButton pending={create.isPending} pendingLabel="Creating…">
          Create version {next}
        </SubmitButton>
        <button type="button" className="secondary" onClick={onDone}>
          Close
        </button>
      </div>
    </form>
  );
}
