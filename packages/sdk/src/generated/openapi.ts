// Generated from openapi.json by packages/sdk/scripts/generate-types.ts (`pnpm openapi`): do not edit.

export interface paths {
    "/management/organisations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List organisations
         * @description Requires the API key scope `organisations.read`.
         */
        get: operations["Organisations_List"];
        put?: never;
        /**
         * Create an organisation
         * @description Requires the API key scope `organisations.manage`.
         */
        post: operations["Organisations_Create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/organisations/{organisationReference}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an organisation by reference
         * @description Requires the API key scope `organisations.read`.
         */
        get: operations["Organisations_Get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update an organisation (JSON merge patch)
         * @description JSON merge patch (RFC 7396) of the fields Organisations_Create accepts, validated the same way: members left out are unchanged, null clears legalName or country, `identifiers` is replaced as a whole (null or [] clears it). The reference is the path key and cannot change: naming it, or another read-only member (environment, timestamps), gives 400 ReadOnlyField. Issuers of the organisation keep pointing at it.
         *
         *     Requires the API key scope `organisations.manage`.
         */
        patch: operations["Organisations_Update"];
        trace?: never;
    };
    "/management/issuers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List issuers
         * @description Issuers in creation order, optionally filtered by organisation and status.
         *
         *     Requires the API key scope `issuers.read`.
         */
        get: operations["Issuers_List"];
        put?: never;
        /**
         * Create an issuer
         * @description Creates a draft issuer for an organisation, generates its ES256 signing key (the private key is encrypted at rest and never returned) and provisions its first status list.
         *
         *     Requires the API key scope `issuers.manage`.
         */
        post: operations["Issuers_Create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/issuers/{issuerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an issuer
         * @description Requires the API key scope `issuers.read`.
         */
        get: operations["Issuers_Get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update an issuer (JSON merge patch)
         * @description JSON merge patch (RFC 7396): members left out are unchanged, null clears an optional member, `display` is replaced as a whole. Read-only members (id, status, signingKey, credentialIssuer, timestamps) give 400 ReadOnlyField.
         *
         *     Requires the API key scope `issuers.manage`.
         */
        patch: operations["Issuers_Update"];
        trace?: never;
    };
    "/management/issuers/{issuerId}/activate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Activate an issuer
         * @description Moves a draft issuer to active once every readiness item is satisfied; otherwise 409 IssuerNotReady lists the outstanding items in `details`. Activating an active issuer returns it unchanged.
         *
         *     Requires the API key scope `issuers.manage`.
         */
        post: operations["Issuers_Activate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/issuers/{issuerId}/rotate-signing-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate an issuer's signing key
         * @description Generates a new ES256 signing key for the issuer; credentials and status list tokens are signed with it from now on. The replaced key's private part is discarded; its public part stays in the issuer's JWKS (`replacedKey: keep`, the default, listed in `previousSigningKeys`) or is withdrawn at once (`withdraw`, for a compromised key: credentials it signed stop verifying). Not part of the interface specification; see docs/api/issuers-and-credential-configurations.md.
         *
         *     Requires the API key scope `issuers.manage`.
         */
        post: operations["Issuers_RotateSigningKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/issuers/{issuerId}/rotate-credential-encryption-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the key wallets encrypt credential requests to
         * @description Publishes a fresh ECDH-ES key in `credential_request_encryption`; requests encrypted to the replaced key are still decrypted for `overlapSeconds` (default one day). 409 when the issuer offers no credential encryption. Not part of the interface specification; see docs/api/issuance.md.
         *
         *     Requires the API key scope `issuers.manage`.
         */
        post: operations["Issuers_RotateCredentialEncryptionKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/issuers/{issuerId}/next-signing-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Prepare the key the next rotation switches to
         * @description Generates the issuer's next ES256 key ahead of its rotation: it is published in the JWKS at once, its certificate can be requested and set (`key: next`), and Issuers_RotateSigningKey then switches to it with its chain, so credentials and status list tokens carry `x5c` without a gap. A key prepared already is returned unchanged. Not part of the interface specification.
         *
         *     Requires the API key scope `issuers.manage`.
         */
        post: operations["Issuers_PrepareSigningKey"];
        /**
         * Discard the prepared next key
         * @description Discards the prepared next key and its certificate chain; it leaves the JWKS. Nothing prepared → the issuer unchanged. Not part of the interface specification.
         *
         *     Requires the API key scope `issuers.manage`.
         */
        delete: operations["Issuers_DiscardNextSigningKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/issuers/{issuerId}/certificate-signing-request": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a certificate signing request for an issuer's signing key
         * @description A PKCS#10 request for the current signing key (or, with `key=next`, the prepared next key; 409 InvalidState when none is prepared), signed with it, for the operator's CA to certify; set the resulting chain with Issuers_SetSigningCertificate. Not part of the interface specification; see docs/api/issuers-and-credential-configurations.md.
         *
         *     Requires the API key scope `issuers.read`.
         */
        get: operations["Issuers_GetCertificateSigningRequest"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/issuers/{issuerId}/signing-certificate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set the certificate chain of an issuer's signing key
         * @description Credentials and status list tokens then carry the chain in their `x5c` header (HAIP), next to `kid`, while the chain is valid. With `key: next`, the chain is for the prepared next key and goes into use with it at the next rotation (409 InvalidState when none is prepared). The chain is checked against the chosen key and the credential issuer identifier → 400 InvalidCertificate with one detail per problem. Replaces any chain set before; a rotation switches to the prepared next key's chain, or removes it when no key was prepared. Not part of the interface specification; see docs/api/issuers-and-credential-configurations.md.
         *
         *     Requires the API key scope `issuers.manage`.
         */
        put: operations["Issuers_SetSigningCertificate"];
        post?: never;
        /**
         * Remove the certificate chain of an issuer's signing key
         * @description Credentials and status list tokens go out without `x5c` (kid only) from now on. Removing when none is set answers the issuer unchanged. Not part of the interface specification.
         *
         *     Requires the API key scope `issuers.manage`.
         */
        delete: operations["Issuers_DeleteSigningCertificate"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/issuers/{issuerId}/readiness": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an issuer's readiness checklist
         * @description A structured checklist with one item per requirement for activation, each satisfied or outstanding with what to do next.
         *
         *     Requires the API key scope `issuers.read`.
         */
        get: operations["Issuers_GetReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/credential-configurations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List credential configurations
         * @description Configurations in creation order, optionally those an issuer may issue.
         *
         *     Requires the API key scope `issuers.read`.
         */
        get: operations["CredentialConfigurations_List"];
        put?: never;
        /**
         * Create a credential configuration
         * @description In one call: creates the configuration (in the issuer's environment), activates its version 1 and authorises the issuer to use it. `format` is limited to dc+sd-jwt and `signingAlgorithm` to ES256 (400 PlatformLimit otherwise).
         *
         *     Requires the API key scope `credential-configurations.manage` or `issuers.manage`.
         */
        post: operations["CredentialConfigurations_Create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/credential-configurations/{configurationIdentifier}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a credential configuration
         * @description The configuration with its active version's claims and every version, oldest first.
         *
         *     Requires the API key scope `issuers.read`.
         */
        get: operations["CredentialConfigurations_Get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/credential-configurations/{configurationIdentifier}/versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one version of a configuration, with its claims
         * @description The claims schema of any version, active or superseded (transactions created under it are issued with it).
         *
         *     Requires the API key scope `issuers.read`.
         */
        get: operations["CredentialConfigurations_GetVersion"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/credential-configurations/{configurationIdentifier}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create and activate a new version of a configuration's claims
         * @description Adds the next version with the given claims schema and makes it the active one: issuer metadata, type metadata and transactions created from now on use it (other processes within 2 s). Transactions created earlier keep the version they were created with. At most 100 versions (409 InvalidState). A configuration whose Type Metadata is pinned refuses claims that would change that document (409 InvalidState, detail TypeMetadataPinned). Emits credential_configuration.version_activated. Accepts Idempotency-Key.
         *
         *     Requires the API key scope `credential-configurations.manage` or `issuers.manage`.
         */
        post: operations["CredentialConfigurations_CreateVersion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/credential-configurations/{configurationIdentifier}/versions/{version}/activate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make an existing version the active one
         * @description Rolls the configuration back (or forward) to one of its versions, for transactions created from now on. Activating the active version changes nothing. Emits credential_configuration.version_activated when the active version changes.
         *
         *     Requires the API key scope `credential-configurations.manage` or `issuers.manage`.
         */
        post: operations["CredentialConfigurations_ActivateVersion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/verification-policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List verification policies
         * @description Lists the identifiers callers name when starting a verification, with display name and status; never the rules.
         *
         *     Requires the API key scope `verification-policies.read`.
         */
        get: operations["VerificationPolicies_List"];
        put?: never;
        /**
         * Create a verification policy
         * @description Creates an active policy (its version 1). Every credential type must belong to a credential configuration in this environment unless the credential trusts an external issuer (jwksUri or x5cRoot); platform issuers must exist here. A policy must ask for at least one claim (requiredClaims or optionalClaims of some credential; 400 otherwise). Change it later with VerificationPolicies_CreateVersion. Accepts Idempotency-Key.
         *
         *     Requires the API key scope `verification-policies.manage`.
         */
        post: operations["VerificationPolicies_Create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/verification-policies/{policyIdentifier}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a verification policy, with its rules
         * @description Requires the API key scope `verification-policies.read`.
         */
        get: operations["VerificationPolicies_Get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/verification-policies/{policyIdentifier}/suspend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Suspend a verification policy
         * @description active → suspended: new verifications naming the policy are refused. Suspending a suspended policy → 409 InvalidState. Emits verification_policy.suspended.
         *
         *     Requires the API key scope `verification-policies.manage`.
         */
        post: operations["VerificationPolicies_Suspend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/verification-policies/{policyIdentifier}/versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one version of a verification policy, with its content
         * @description The display name, purpose and rules of any version, active or superseded (sessions started under it were built from it).
         *
         *     Requires the API key scope `verification-policies.read`.
         */
        get: operations["VerificationPolicies_GetVersion"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/verification-policies/{policyIdentifier}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change a verification policy: create and activate a new version
         * @description The way to edit a policy. Takes the whole content again (displayName, purpose and rules, as VerificationPolicies_Create without the identifier), checked as on create, adds it as the next version and makes it the active one: verifications started from now on run under it. Sessions started earlier keep the rules and purpose they were created with. The policy's status (active or suspended) does not change. At most 100 versions (409 InvalidState). Emits verification_policy.version_activated. Accepts Idempotency-Key.
         *
         *     Requires the API key scope `verification-policies.manage`.
         */
        post: operations["VerificationPolicies_CreateVersion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/verification-policies/{policyIdentifier}/versions/{version}/activate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make an existing version of a verification policy the active one
         * @description Rolls the policy back (or forward) to one of its versions, for verifications started from now on. Activating the active version changes nothing. Emits verification_policy.version_activated when the active version changes.
         *
         *     Requires the API key scope `verification-policies.manage`.
         */
        post: operations["VerificationPolicies_ActivateVersion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/verification-policies/{policyIdentifier}/reactivate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reactivate a suspended verification policy
         * @description suspended → active. Reactivating an active policy → 409 InvalidState. Emits verification_policy.reactivated.
         *
         *     Requires the API key scope `verification-policies.manage`.
         */
        post: operations["VerificationPolicies_Reactivate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/verifications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a verification under a verification policy
         * @description Creates a pending verification session; show `authorizationRequestUri` to the holder (QR code or same-device link), or, with `dcApi`, pass `dcApiRequest` to the browser's `navigator.credentials.get` (Digital Credentials API) and hand its answer to VerificationSessions_SubmitDcApiResponse. Honours `Idempotency-Key`.
         *
         *     Requires the API key scope `verification.execute`.
         */
        post: operations["Verifications_Create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/verifications/{verificationId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a verification
         * @description Returns the verification session. A pending session past its expiry reads as `expired`. Pass `responseCode` to check the code a same-device redirect delivered (400 when it is not this session's); under a policy with `requireResponseCode`, a session a wallet answered shows its `result` only then (otherwise `resultWithheld: true`).
         *
         *     Requires the API key scope `verification.read`.
         */
        get: operations["Verifications_Get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/verification-sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a verification session
         * @description Same resource as Verifications_Get. A pending session past its expiry reads as `expired`. Under a policy with `requireResponseCode`, a session a wallet answered reads with `resultWithheld: true` instead of its `result` (Verifications_Get with the `responseCode` shows it).
         *
         *     Requires the API key scope `verification.read`.
         */
        get: operations["VerificationSessions_Get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/verification-sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List verification sessions
         * @description This environment's verification sessions, newest first, filtered by state (a pending one past its expiry counts as `expired`), policy, creation time and reason code. Each item is what VerificationSessions_Get shows: the outcome, its reasons and each credential's checks, and the claim-minimised result unless the policy withholds it (`resultWithheld`). An extension of the contract (docs/api/verification.md).
         *
         *     Requires the API key scope `verification.read`.
         */
        get: operations["VerificationSessions_List"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/verification-sessions/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a verification session
         * @description pending → cancelled; cancelling a cancelled session again returns it unchanged; verified, rejected or expired → 409.
         *
         *     Requires the API key scope `verification.execute`.
         */
        post: operations["VerificationSessions_Cancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/verification-sessions/{id}/submissions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit a presentation (legacy server-to-server)
         * @description Legacy alternative to the wallet's OpenID4VP callback; the same engine decides the same session. A session that is no longer pending → 409.
         *
         *     Requires the API key scope `verification.execute`.
         */
        post: operations["VerificationSessions_Submit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/verification-sessions/{id}/dc-api-responses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Hand back a Digital Credentials API response
         * @description The `{ protocol, data }` that `navigator.credentials.get` returned for the session's `dcApiRequest` (OpenID4VP Appendix A): the same engine as the wallet callback decides the session (verified or rejected, with reasons: e.g. a presentation for another origin or nonce is rejected). A response that cannot be read (other protocol, malformed, not encrypted to this session's key) → 400 and the session stays pending; a session no longer pending (a replay) or not created for the DC API → 409.
         *
         *     Requires the API key scope `verification.execute`.
         */
        post: operations["VerificationSessions_SubmitDcApiResponse"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/verifier-certificate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the verifier certificate
         * @description Extension. The certificate that signs this environment's OpenID4VP request objects (x5c), with the client identifiers wallets see. Generated on first use when none exists.
         *
         *     Requires the API key scope `verification-policies.read`.
         */
        get: operations["VerifierCertificates_Get"];
        /**
         * Replace the verifier certificate by an uploaded chain
         * @description Extension. Installs a certificate chain (PEM, leaf first) and its private key for this environment, replacing the current certificate. Invalid input → 400 InvalidCertificate with details. Pending sessions whose client_id the new certificate does not carry (every x509_hash session) can no longer be fetched by wallets.
         *
         *     Requires the API key scope `verification-policies.manage`.
         */
        put: operations["VerifierCertificates_Upload"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/verifier-certificate/signing-request": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start an access certificate (WRPAC): key and CSR
         * @description Extension. Generates a P-256 key (kept sealed, never returned) and a PKCS#10 request whose subject carries C, O, organizationIdentifier and CN as ETSI TS 119 411-8 asks of a relying-party access certificate, with dNSName SANs (the public host by default) and the requested certificate policies. Send the CSR to the access CA, then import its certificate with VerifierCertificates_ImportAccessCertificate. The certificate in use keeps signing until then; a new request replaces a pending one. A retry with the same Idempotency-Key is answered the first request's CSR and makes no second key. Accepts Idempotency-Key.
         *
         *     Requires the API key scope `verification-policies.manage`.
         */
        post: operations["VerifierCertificates_CreateSigningRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/verifier-certificate/access-certificate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Install the access certificate the CA issued
         * @description Extension. Installs the chain the access CA issued for the pending signing request: validated to `trustAnchorPem` (RFC 5280), leaf with the pending key and an organizationIdentifier. Request objects are then signed with it (x5c). No pending request → 409 InvalidState; a chain that does not validate or fit → 400 InvalidCertificate. Pending sessions whose client_id the new certificate does not carry (every x509_hash session) can no longer be fetched by wallets.
         *
         *     Requires the API key scope `verification-policies.manage`.
         */
        put: operations["VerifierCertificates_ImportAccessCertificate"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/verifier-registration-certificate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the registration certificate
         * @description Extension. The relying party's registration certificate (WRPRC, ETSI TS 119 475) of this environment, with what it registers; 404 when none was uploaded.
         *
         *     Requires the API key scope `verification-policies.read`.
         */
        get: operations["VerifierRegistrationCertificates_Get"];
        /**
         * Install the registration certificate
         * @description Extension. Installs a registration certificate (JWT, `typ: rc-wrp+jwt`): signature by its x5c, chain validated to `trustAnchorPem`, validity, and `sub` (or, for an intermediary, `act.sub`) equal to the access certificate's organizationIdentifier; otherwise 400 InvalidCertificate. 409 InvalidState while the verifier certificate has no organizationIdentifier. Every new verification then carries it in verifier_info and may ask only for what it registers (409 NotRegistered).
         *
         *     Requires the API key scope `verification-policies.manage`.
         */
        put: operations["VerifierRegistrationCertificates_Upload"];
        post?: never;
        /**
         * Remove the registration certificate
         * @description Extension. Answers 200 with the certificate as it was. New verifications are no longer limited by it nor carry it; 404 when none was uploaded.
         *
         *     Requires the API key scope `verification-policies.manage`.
         */
        delete: operations["VerifierRegistrationCertificates_Delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/verifier-registration-certificates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the registration certificates
         * @description Extension. The environment's registration certificates by id, the default one (`default: true`) among them.
         *
         *     Requires the API key scope `verification-policies.read`.
         */
        get: operations["VerifierRegistrationCertificates_List"];
        put?: never;
        /**
         * Add a registration certificate by id
         * @description Extension. Checks a registration certificate as VerifierRegistrationCertificates_Upload does (400 InvalidCertificate, 409 InvalidState) and keeps it beside the environment's default one under an id of its own: verification policies name it in `registrationCertificateIds` (one or more per policy; one per relying party an intermediary acts for). Verifications under such a policy carry those certificates in verifier_info and may ask only for what one of them registers (409 NotRegistered). Accepts Idempotency-Key.
         *
         *     Requires the API key scope `verification-policies.manage`.
         */
        post: operations["VerifierRegistrationCertificates_Add"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/verifier-registration-certificates/{registrationCertificateId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a registration certificate by id
         * @description Requires the API key scope `verification-policies.read`.
         */
        get: operations["VerifierRegistrationCertificates_GetById"];
        put?: never;
        post?: never;
        /**
         * Remove a registration certificate by id
         * @description Extension. Answers 200 with the certificate as it was (the default one may be removed this way too). Verifications under a policy naming it are refused from then on (409 NotRegistered) until the policy names another.
         *
         *     Requires the API key scope `verification-policies.manage`.
         */
        delete: operations["VerifierRegistrationCertificates_Remove"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/relying-parties": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List relying parties
         * @description Requires the API key scope `verification-policies.read`.
         */
        get: operations["RelyingParties_List"];
        put?: never;
        /**
         * Create a relying party this tenant acts for as an intermediary
         * @description Extension. A relying party behind this tenant (the intermediary, whose access certificate signs the requests): its name and identifiers, as its registration certificates name it in `sub`, and optional information URIs. Verification policies name it in `relyingPartyId`. Another relying party of the environment with one of the identifiers → 409 AlreadyExists. Accepts Idempotency-Key.
         *
         *     Requires the API key scope `verification-policies.manage`.
         */
        post: operations["RelyingParties_Create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/relying-parties/{relyingPartyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a relying party
         * @description Requires the API key scope `verification-policies.read`.
         */
        get: operations["RelyingParties_Get"];
        put?: never;
        post?: never;
        /**
         * Delete a relying party
         * @description Extension. Answers 200 with the relying party as it was; the registration certificates held for it are removed with it. 409 InvalidState (detail RelyingPartyInUse per policy) while the active version of a verification policy names it.
         *
         *     Requires the API key scope `verification-policies.manage`.
         */
        delete: operations["RelyingParties_Delete"];
        options?: never;
        head?: never;
        /**
         * Update a relying party (JSON merge patch)
         * @description Extension. JSON merge patch (RFC 7396): absent members stay, null clears an optional one. New `identifiers` must be free in the environment (409 AlreadyExists) and still name the `sub` of each of its registration certificates (409 InvalidState, detail RegistrationCertificateMismatch).
         *
         *     Requires the API key scope `verification-policies.manage`.
         */
        patch: operations["RelyingParties_Update"];
        trace?: never;
    };
    "/management/relying-parties/{relyingPartyId}/registration-certificates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the relying party's registration certificates
         * @description Extension. Oldest first, with their expiry (`expiresAt`).
         *
         *     Requires the API key scope `verification-policies.read`.
         */
        get: operations["RelyingParties_ListRegistrationCertificates"];
        put?: never;
        /**
         * Add a registration certificate of the relying party
         * @description Extension. Checks the registration certificate as VerifierRegistrationCertificates_Add does (400 InvalidCertificate, 409 InvalidState without an access certificate) and that it is this relying party's as served by this intermediary: a `sub` identifier is one of the relying party's identifiers (else detail RelyingPartyMismatch) and `act.sub` is the access certificate's organizationIdentifier (else NotIntermediated); nothing is written otherwise. It gets an id (`vreg_…`) policies of this relying party name in `registrationCertificateIds`; remove it with VerifierRegistrationCertificates_Remove. Accepts Idempotency-Key.
         *
         *     Requires the API key scope `verification-policies.manage`.
         */
        post: operations["RelyingParties_AddRegistrationCertificate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/trust-sources": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List trust sources
         * @description Requires the API key scope `trust-sources.read`.
         */
        get: operations["TrustSources_List"];
        put?: never;
        /**
         * Create a trust source (a trusted list)
         * @description Fetches the list once (https; the URL must not be, or resolve to, a private, loopback, link-local or metadata address: 400 TrustSourceUrlNotAllowed) and verifies it: XMLDSig for ETSI TS 119 612 lists (`lotl`, `tsl`), JWS for TS 119 602 LoTEs (`lote`), signed by one of `signerCertificates`; a LoTL's pointed-to lists are fetched and verified with the certificates the LoTL gives for them. A list that cannot be fetched or does not verify is refused with 422 TrustListRefused, whose detail code says why (BadSignature, UnknownSigner, ListExpired, WrongReference, UnsupportedAlgorithm, MalformedList, FetchFailed); nothing is stored then. Accepts Idempotency-Key.
         *
         *     Requires the API key scope `trust-sources.manage`.
         */
        post: operations["TrustSources_Create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/trust-sources/{trustSourceId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a trust source, with the state of its lists
         * @description Requires the API key scope `trust-sources.read`.
         */
        get: operations["TrustSources_Get"];
        put?: never;
        post?: never;
        /**
         * Delete a trust source
         * @description Answers 200 with the trust source as it was. From now on it reads as 404 and policies naming it trust no issuer through it.
         *
         *     Requires the API key scope `trust-sources.manage`.
         */
        delete: operations["TrustSources_Delete"];
        options?: never;
        head?: never;
        /**
         * Update a trust source (JSON merge patch)
         * @description JSON merge patch (RFC 7396) of signerCertificates, refreshIntervalSeconds and description (null clears it). New signer certificates apply from the next refresh on. kind and url are fixed (400 ReadOnlyField): another list is another trust source.
         *
         *     Requires the API key scope `trust-sources.manage`.
         */
        patch: operations["TrustSources_Update"];
        trace?: never;
    };
    "/management/trust-sources/{trustSourceId}/services": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the services of a trust source's last good copy
         * @description The trust services the verified lists name (a LoTL's pointed-to lists after it), in list order, with their service type, name, status, certificates and history, and whether each counts as a trust anchor now. `serviceType` keeps only services of that type. Empty while no copy has verified (status `pending`).
         *
         *     Requires the API key scope `trust-sources.read`.
         */
        get: operations["TrustSources_ListServices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/trust-sources/{trustSourceId}/refreshes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a trust source's refresh attempts
         * @description The recorded refresh attempts, newest first: the first fetch at TrustSources_Create, TrustSources_Refresh and the worker's scheduled refreshes, each with its outcome (`ok`, `failed` when the list could not be fetched, `refused` when it did not verify), the reason code, the sequence number, issue date and NextUpdate of the copy in use after it, its number of services and whether an earlier good copy was kept. The newest 50 per trust source are kept.
         *
         *     Requires the API key scope `trust-sources.read`.
         */
        get: operations["TrustSources_ListRefreshes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/trust-sources/{trustSourceId}/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Fetch and verify a trust source's lists now
         * @description Runs the refresh the worker otherwise runs on schedule (the refresh interval, or sooner at a list's NextUpdate). When the list cannot be fetched or does not verify, the last good copy is kept (status `stale` while its NextUpdate has not passed, `expired` after), the failure is recorded in `lastError`, a `trust_source.refresh_failed` event is emitted and the call answers 422 TrustListRefused with the reason as detail code.
         *
         *     Requires the API key scope `trust-sources.manage`.
         */
        post: operations["TrustSources_Refresh"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook subscriptions (without secrets)
         * @description Requires the API key scope `webhooks.read`.
         */
        get: operations["Webhooks_List"];
        put?: never;
        /**
         * Create a webhook subscription
         * @description The URL must be https (http only to loopback in development mode) and must not be, or resolve to, a private, loopback, link-local, CGNAT, unique-local, multicast or cloud metadata address (400 WebhookUrlNotAllowed). The response carries the signing secret (`whsec_…`, Standard Webhooks) once; it is never shown again.
         *
         *     Requires the API key scope `webhooks.manage`.
         */
        post: operations["Webhooks_Create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/webhooks/{subscriptionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a webhook subscription (without its secret)
         * @description Requires the API key scope `webhooks.read`.
         */
        get: operations["Webhooks_Get"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook subscription
         * @description Answers 200 with the subscription as it was when deleted. The subscription stops receiving events at once and reads as 404 afterwards (deleting it again → 404); its deliveries stay listed in WebhookDeliveries_List until the delivery retention period deletes them.
         *
         *     Requires the API key scope `webhooks.manage`.
         */
        delete: operations["Webhooks_Delete"];
        options?: never;
        head?: never;
        /**
         * Update a webhook subscription (JSON merge patch)
         * @description JSON merge patch (RFC 7396) of what Webhooks_Create accepts (url, events, description) plus `status`: members left out are unchanged, `description: null` clears it, `events` is replaced as a whole. A new URL is checked exactly as on create (400 WebhookUrlNotAllowed). `status: disabled` stops deliveries; `status: active` resumes a disabled subscription and clears `disabledReason`. The signing secret is not changed here (Webhooks_RotateSecret); naming it or another read-only member gives 400 ReadOnlyField. A deleted subscription is 404.
         *
         *     Requires the API key scope `webhooks.manage`.
         */
        patch: operations["Webhooks_Update"];
        trace?: never;
    };
    "/management/webhooks/{subscriptionId}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a webhook subscription's signing secret
         * @description Returns the new secret once. During `overlapSeconds` (default one day) every delivery also carries a `v1,` signature with the replaced secret, so the receiver can switch over without losing events; secrets replaced by earlier rotations keep signing until their own overlaps end (at most 5). 0 ends every replaced secret at once.
         *
         *     Requires the API key scope `webhooks.manage`.
         */
        post: operations["Webhooks_RotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/webhook-deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook deliveries
         * @description Every event delivery with its attempts, oldest first; filter by subscription, status and event type. Deliveries of deleted subscriptions stay listed. A finished delivery (succeeded or failed) is deleted, with its attempts, once its last change is older than the retention period (30 days by default); a pending one is never deleted.
         *
         *     Requires the API key scope `webhooks.read`.
         */
        get: operations["WebhookDeliveries_List"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/webhook-deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Redeliver a webhook delivery now
         * @description Schedules one more attempt at once, whatever the delivery's status (a retry after failure or a resend after success), with the same `webhook-id`, and restarts its retention period. 409 InvalidState when the subscription is disabled or deleted; 404 once the delivery is past the retention period and deleted.
         *
         *     Requires the API key scope `webhooks.manage`.
         */
        post: operations["WebhookDeliveries_Redeliver"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/issuance-transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List issuance transactions
         * @description This environment's transactions, newest first, filtered by state (a pending one past its expiry counts as `expired`), configuration, issuer, creation time and the caller's references. An issuer-bound key sees only its issuer's. Items never carry the offer link, offer URI or transaction code. An extension of the contract (docs/api/issuance.md).
         *
         *     Requires the API key scope `credentials.read`.
         */
        get: operations["IssuanceTransactions_List"];
        put?: never;
        /**
         * Create an issuance transaction (credential offer)
         * @description Validates the claims against the credential configuration and creates an OpenID4VCI credential offer (pre-authorized code flow). An issuer-bound key uses its issuer; otherwise name `issuerId`.
         *
         *     Requires the API key scope `credentials.issue`.
         */
        post: operations["IssuanceTransactions_Create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/issuance-transactions/{transactionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an issuance transaction
         * @description Requires the API key scope `credentials.read`.
         */
        get: operations["IssuanceTransactions_Get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/issuance-transactions/{transactionId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a pending issuance transaction
         * @description pending → cancelled. A completed, cancelled or expired transaction gives 409.
         *
         *     Requires the API key scope `credentials.issue`.
         */
        post: operations["IssuanceTransactions_Cancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/issuance-transactions/{transactionId}/claims": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Supply the claims of a deferred issuance transaction
         * @description For a transaction created with `delivery.deferred`: the claims, validated against the configuration version it was created with. The wallet's next request then gets the credential. A transaction that is not pending, not deferred, or already has its claims gives 409. Accepts `Idempotency-Key`, so a retry after a lost answer replays it instead of 409.
         *
         *     Requires the API key scope `credentials.issue`.
         */
        post: operations["IssuanceTransactions_SupplyClaims"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/authorizations/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Complete the person's authorization at the issuer's authorization page
         * @description For issuers with an `authorizationPage`: the authorization endpoint sends the person there with `interaction`, `transaction_id` (or, for a wallet-initiated request, `credential_configuration_id`), `client_id`, `redirect_uri` and `wallet_attested`; once the integrator has signed the person in and asked for consent, it calls this with the decision (and, to approve a wallet-initiated request, the transaction it created for the person) and sends the browser to the returned `redirectTo`. The returned URL gives the wallet its code (or access_denied) only in the browser that opened the authorization endpoint. The handle is single use and valid 10 minutes (409 once completed or expired; 404 if unknown to the caller). Beyond the interface specification.
         *
         *     Requires the API key scope `credentials.issue`.
         */
        post: operations["Authorizations_Complete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/credentials/issuance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue a credential (creates an issuance transaction with its offer)
         * @description Same as IssuanceTransactions_Create, but `issuerId` must be named explicitly: an API key is a tenant credential, not bound to one issuer.
         *
         *     Requires the API key scope `credentials.issue`.
         */
        post: operations["Credentials_Issue"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/credentials/{credentialId}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke a credential
         * @description Irreversible and immediate: the credential's status list entry becomes INVALID and the next status list fetch shows it. Every copy of a batch (the credentials of one issuance transaction, those of further requests with its access token included) is revoked with it, and the transaction issues no more. Revoking a revoked credential returns its state (200). A credential issued without status (statusEnabled false) gives 400.
         *
         *     Requires the API key scope `credentials.revoke`.
         */
        post: operations["Credentials_Revoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List credentials
         * @description The credentials issued in this tenant's environment (an issuer-bound key: its issuer's), newest first, with their state and never their claims. Filters combine with AND. An extension of the contract (docs/api/credentials.md).
         *
         *     Requires the API key scope `credentials.read`.
         */
        get: operations["Credentials_List"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/credentials/{credentialId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a credential
         * @description An issued credential's metadata and state (`active`, `suspended`, `revoked`, `expired`), its status list entry and holder key thumbprint; never its claims, which are not kept. An extension of the contract (docs/api/credentials.md).
         *
         *     Requires the API key scope `credentials.read`.
         */
        get: operations["Credentials_Get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/credentials/{credentialId}/suspend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Suspend a credential
         * @description Reversible: the credential's status list entry becomes SUSPENDED (2) and the next status list fetch shows it. Every active copy of its batch is suspended with it. Suspending a suspended credential returns its state (200, no event); a revoked credential gives 409 InvalidState; one issued without status (statusEnabled false) gives 400. An extension of the contract (docs/api/credentials.md).
         *
         *     Requires the API key scope `credentials.revoke`.
         */
        post: operations["Credentials_Suspend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/credentials/{credentialId}/reinstate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reinstate a suspended credential
         * @description The credential's status list entry becomes VALID (0) again and the next status list fetch shows it; every suspended copy of its batch with it. Reinstating an active credential returns its state (200, no event); a revoked credential gives 409 InvalidState; one issued without status gives 400. An extension of the contract (docs/api/credentials.md).
         *
         *     Requires the API key scope `credentials.revoke`.
         */
        post: operations["Credentials_Reinstate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/audit-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List audit events
         * @description Every state-changing call of this tenant's environment, newest first (an extension of the contract; docs/api/audit-events.md).
         *
         *     Requires the API key scope `audit.read`.
         */
        get: operations["AuditEvents_List"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/audit-events/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export audit events
         * @description The events AuditEvents_List would list with the same filters, all of them, oldest first (chain order), as newline-delimited JSON: one event per line, in the List's item shape. The export ends at the newest event when it began; events recorded meanwhile are the next export's. An extension of the contract; docs/api/audit-events.md.
         *
         *     Requires the API key scope `audit.read`.
         */
        get: operations["AuditEvents_Export"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1.0/activity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Count issuance and verification activity over time
         * @description Credentials issued and revoked, verification sessions verified and rejected, per UTC day of a range of at most 366 days (default: the last 30), for the whole environment and, with `groupBy`, per issuer or per verification policy. An extension of the contract (docs/api/activity.md).
         *
         *     Requires the API key scopes `credentials.read` and `verification.read`.
         */
        get: operations["Activity_Get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/tenants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List tenants (platform operators)
         * @description Requires the API key scope `platform.manage`.
         */
        get: operations["Tenants_List"];
        put?: never;
        /**
         * Create a tenant (platform operators)
         * @description A new, active tenant. With `adminEmail`, also its first console administrator, whose password the answer holds once (`admin.temporaryPassword`). An e-mail that is a console user already → 409 AlreadyExists, and no tenant is made.
         *
         *     Requires the API key scope `platform.manage`.
         */
        post: operations["Tenants_Create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/tenants/{tenantId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a tenant (platform operators)
         * @description Requires the API key scope `platform.manage`.
         */
        get: operations["Tenants_Get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/tenants/{tenantId}/suspend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Suspend a tenant (platform operators)
         * @description active → suspended: from the next request, every operation called with the tenant's API keys or by its console users answers 403 TenantSuspended (other API processes: within 2 seconds), and its issuers' and verifiers' wallet endpoints refuse wallets. Nothing is deleted. Suspending a suspended tenant, or the tenant the caller acts in → 409 InvalidState.
         *
         *     Requires the API key scope `platform.manage`.
         */
        post: operations["Tenants_Suspend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/tenants/{tenantId}/reactivate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reactivate a suspended tenant (platform operators)
         * @description suspended → active: the tenant's API keys and console users are served again. Reactivating an active tenant → 409 InvalidState.
         *
         *     Requires the API key scope `platform.manage`.
         */
        post: operations["Tenants_Reactivate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/tenants/{tenantId}/admins": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a console administrator of a tenant (platform operators)
         * @description A console user with the admin role whose home is the tenant, and their password, returned once. An e-mail that is a console user already → 409 AlreadyExists (add a tenant to an existing user with `pnpm cli staff grant`).
         *
         *     Requires the API key scope `platform.manage`.
         */
        post: operations["Tenants_CreateAdmin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/staff-members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the tenant's console users
         * @description The tenant's team, by user id: users whose home it is and users of other tenants who are members, each with their role here.
         *
         *     Requires the API key scope `staff.manage`.
         */
        get: operations["StaffMembers_List"];
        put?: never;
        /**
         * Add a console user to the tenant
         * @description A new console user whose home is the tenant, with a generated password returned once (`temporaryPassword`). An e-mail that is a console user of another tenant joins this one with the role (`temporaryPassword: null`, `home: false`). A member already → 409 AlreadyExists.
         *
         *     Requires the API key scope `staff.manage`.
         */
        post: operations["StaffMembers_Create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/staff-members/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a member from the tenant
         * @description Answers 200 with the member as they were. Every console session of theirs ends. A user whose home is the tenant is deleted, unless they are a member of other tenants: then the oldest of those becomes their home. Removing the last administrator → 409 InvalidState (detail `LastAdministrator`).
         *
         *     Requires the API key scope `staff.manage`.
         */
        delete: operations["StaffMembers_Remove"];
        options?: never;
        head?: never;
        /**
         * Change a member's role
         * @description The new role applies from the member's next request. Demoting the tenant's last administrator → 409 InvalidState (detail `LastAdministrator`). A platform operator can be changed only by a caller holding `platform.manage` (else 403).
         *
         *     Requires the API key scope `staff.manage`.
         */
        patch: operations["StaffMembers_UpdateRole"];
        trace?: never;
    };
    "/management/staff-members/{userId}/reset-password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reset a member's password
         * @description A generated password, returned once (`temporaryPassword`); the old one stops working and every console session of the member ends. Only for members whose home is the tenant: another tenant's member → 409 InvalidState (detail `NotHomeTenant`).
         *
         *     Requires the API key scope `staff.manage`.
         */
        post: operations["StaffMembers_ResetPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/management/staff-members/{userId}/sign-out": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign a member out everywhere
         * @description Ends every console session of the member, whichever tenant and environment it acts in: from the next request each answers 401, on every API process. Their password stays.
         *
         *     Requires the API key scope `staff.manage`.
         */
        post: operations["StaffMembers_SignOut"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "issuance.transaction.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * issuance.transaction.created
         * @description An issuance transaction was created (IssuanceTransactions_Create); its offer is pending.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_IssuanceTransactionCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "issuance.transaction.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * issuance.transaction.completed
         * @description The wallet redeemed the offer and received its credential(s).
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_IssuanceTransactionCompleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "issuance.transaction.reissued": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * issuance.transaction.reissued
         * @description The wallet asked again with the access token of a completed transaction (OpenID4VCI §14.3: its first answer was lost, or it wants fresh copies) and received further credentials: new status entries, recorded against the transaction like the first (revoking any of them revokes all). Possible while the access token lives (5 minutes from the code's redemption); the transaction completes only once.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_IssuanceTransactionReissued"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "issuance.transaction.deferred": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * issuance.transaction.deferred
         * @description The wallet asked for the credential of a deferred transaction before its claims were supplied; it was told to come back (HTTP 202) and waits. Supply the claims with IssuanceTransactions_SupplyClaims.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_IssuanceTransactionDeferred"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "issuance.transaction.cancelled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * issuance.transaction.cancelled
         * @description A pending issuance transaction was cancelled (IssuanceTransactions_Cancel).
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_IssuanceTransactionCancelled"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "issuance.transaction.expired": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * issuance.transaction.expired
         * @description A pending issuance transaction reached its expiry unredeemed. Emitted once by the background sweeper (within about a minute of the expiry).
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_IssuanceTransactionExpired"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "credential.revoked": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * credential.revoked
         * @description A credential was revoked (Credentials_Revoke); its status list entry now says so.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_CredentialRevoked"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "credential.suspended": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * credential.suspended
         * @description A credential was suspended (Credentials_Suspend); its status list entry now says SUSPENDED (2). One event per copy of the batch.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_CredentialSuspended"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "credential.reinstated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * credential.reinstated
         * @description A suspended credential was reinstated (Credentials_Reinstate); its status list entry is VALID (0) again. One event per copy of the batch.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_CredentialReinstated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "credential.accepted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * credential.accepted
         * @description The wallet reported that it accepted and stored the credential(s) (OpenID4VCI notification).
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_CredentialAccepted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "credential.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * credential.failed
         * @description The wallet reported that storing the credential(s) failed (OpenID4VCI notification).
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_CredentialFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "credential.deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * credential.deleted
         * @description The wallet reported that the holder deleted the credential(s) (OpenID4VCI notification).
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_CredentialDeleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "verification.session.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * verification.session.created
         * @description A verification session was created (Verifications_Create); it waits for the wallet.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_VerificationSessionCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "verification.session.verified": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * verification.session.verified
         * @description The wallet's presentation passed every check. Fetch the session for the (claim-minimised) result; the event carries no claims.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_VerificationSessionVerified"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "verification.session.rejected": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * verification.session.rejected
         * @description The wallet's presentation failed a check. Fetch the session for the reasons.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_VerificationSessionRejected"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "verification.session.cancelled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * verification.session.cancelled
         * @description A pending verification session was cancelled.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_VerificationSessionCancelled"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "verification.session.expired": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * verification.session.expired
         * @description A pending verification session reached its expiry unanswered. Emitted once, either when the session is read after its expiry or by the background sweeper, whichever comes first.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_VerificationSessionExpired"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "issuer.activated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * issuer.activated
         * @description An issuer was activated (Issuers_Activate) and can issue.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_IssuerActivated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "credential_configuration.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * credential_configuration.created
         * @description A credential configuration was created with its version 1 active.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_CredentialConfigurationCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "credential_configuration.version_activated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * credential_configuration.version_activated
         * @description Another version of a credential configuration became the active one (a new version, or an earlier one activated again); transactions created from now on use it.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_CredentialConfigurationVersionActivated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "verification_policy.suspended": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * verification_policy.suspended
         * @description A verification policy was suspended; new verifications under it are refused.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_VerificationPolicySuspended"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "verification_policy.reactivated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * verification_policy.reactivated
         * @description A suspended verification policy was reactivated.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_VerificationPolicyReactivated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "verification_policy.version_activated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * verification_policy.version_activated
         * @description Another version of a verification policy became the active one (a new version, or an earlier one activated again); verifications started from now on run under it, those started earlier keep theirs.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_VerificationPolicyVersionActivated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "trust_source.refresh_failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * trust_source.refresh_failed
         * @description A trust source's list could not be fetched or did not verify; the last good copy is kept (stale while its NextUpdate has not passed).
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_TrustSourceRefreshFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "trust_source.expired": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * trust_source.expired
         * @description A list of a trust source's last good copy has passed its NextUpdate without a successful refresh: the services of that list are no longer trusted until a refresh succeeds. Sent once per lapsed copy.
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_TrustSourceExpired"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "verifier_certificate.expiring": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * verifier_certificate.expiring
         * @description The verifier certificate in use (the access certificate request objects are signed with) expires within the notice window (CERTIFICATE_EXPIRY_NOTICE_DAYS, default 30 days), or had expired when first seen. Sent once per certificate; import a renewed one (VerifierCertificates_CreateSigningRequest, VerifierCertificates_ImportAccessCertificate).
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_VerifierCertificateExpiring"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "registration_certificate.expiring": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * registration_certificate.expiring
         * @description The registration certificate (WRPRC) expires within the notice window (CERTIFICATE_EXPIRY_NOTICE_DAYS, default 30 days), or had expired when first seen; once expired, verifications are refused (409 NotRegistered). Sent once per certificate; upload a renewed one (VerifierRegistrationCertificates_Upload).
         *
         *     Signed per Standard Webhooks: verify `webhook-signature` over `<webhook-id>.<webhook-timestamp>.<body>` with your subscription secret (e.g. `new Webhook(secret).verify(body, headers)` of the `standardwebhooks` library). Delivered at least once: deduplicate by `webhook-id`.
         */
        post: operations["Webhook_RegistrationCertificateExpiring"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description Wallet-facing display metadata for one locale (OpenID4VCI issuer `display`). */
        IssuerDisplay: {
            /**
             * @description BCP 47 language tag.
             * @example en-GB
             */
            locale: string;
            /**
             * @description Issuer name shown by wallets in this locale.
             * @example Acme Bank
             */
            name: string;
            /**
             * @description Short description in this locale.
             * @example Retail bank
             */
            description?: string;
            /** @description Logo wallets show for this issuer in this locale. */
            logo?: {
                /**
                 * Format: uri
                 * @description https URL of the logo image.
                 * @example https://acme.example/logo.png
                 */
                uri: string;
                /**
                 * @description Alternative text for the logo.
                 * @example Acme Bank logo
                 */
                altText?: string;
            };
        };
        /** @description Wallet attestation as OAuth client authentication (OpenID4VCI Appendix E, attest_jwt_client_auth) at this issuer's PAR and token endpoints. */
        IssuerWalletAttestation: {
            /**
             * @description PEM X.509 CA certificates of the wallet providers trusted to attest wallets: a wallet attestation is accepted when its x5c chain ends at one of them (or at a CA of `trustSources`). At least one root or one trust source.
             * @default []
             */
            trustedRoots?: string[];
            /** @description Trust sources whose wallet providers are trusted: an attestation whose x5c chain ends at a CA a source grants under the service type now is accepted, as for `trustedRoots`. */
            trustSources?: components["schemas"]["AttesterTrustSource"][];
            /**
             * @description When true, the pushed authorization request and token endpoints refuse a wallet without a valid attestation (401 invalid_client), as HAIP has issuers require client authentication. When false, an attestation is checked when sent and otherwise not asked for.
             * @default false
             * @example false
             */
            required?: boolean;
            /**
             * @description When true, the issuer offers a challenge endpoint (`challenge_endpoint` in its authorization server metadata) and an attestation's PoP must carry one of its challenges (`challenge`, or the DPoP proof's `nonce` when the proof is the PoP): 400 `use_attestation_challenge` with a fresh `OAuth-Client-Attestation-Challenge` otherwise. Challenges are valid 5 minutes, at this issuer only.
             * @default false
             * @example false
             */
            requireChallenge?: boolean;
        };
        AttesterTrustSource: {
            /**
             * @description A trust source of this tenant and environment (TrustSources_Create), typically a LoTE of wallet providers.
             * @example ts_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            trustSourceId: string;
            /**
             * @description The ETSI service type whose services' certificates are trusted (status granted, or none in a TS 119 602 list, at the time of the request); default the TS 119 602 wallet provider issuance service.
             * @default http://uri.etsi.org/19602/SvcType/WalletSolution/Issuance
             * @example http://uri.etsi.org/19602/SvcType/WalletSolution/Issuance
             */
            serviceType?: string;
        };
        /** @description Key attestations (OpenID4VCI Appendix D) this issuer accepts for the keys it binds credentials to. */
        IssuerKeyAttestation: {
            /**
             * @description PEM X.509 CA certificates of the key attesters (wallet providers, key storage vendors) trusted: a key attestation is accepted when its x5c chain ends at one of them (or at a CA of `trustSources`). At least one root or one trust source.
             * @default []
             */
            trustedRoots?: string[];
            /** @description Trust sources whose services of the type are trusted key attesters: a key attestation whose x5c chain ends at a CA a source grants now is accepted, as for `trustedRoots`. */
            trustSources?: components["schemas"]["AttesterTrustSource"][];
            /**
             * @description When true, every key proof must carry a key attestation (jwt proofs with key_attestation, or attestation proofs), announced as key_attestations_required; otherwise one is checked when sent.
             * @default false
             * @example false
             */
            required?: boolean;
            /**
             * @description Accepted key storage levels (any one): e.g. iso_18045_high, iso_18045_moderate. Omitted: any.
             * @example [
             *       "iso_18045_high",
             *       "iso_18045_moderate"
             *     ]
             */
            keyStorage?: string[];
            /**
             * @description Accepted user authentication levels (any one): e.g. iso_18045_high, iso_18045_moderate. Omitted: any.
             * @example [
             *       "iso_18045_high",
             *       "iso_18045_moderate"
             *     ]
             */
            userAuthentication?: string[];
        };
        /** @description Where the authorization code flow asks for the person: without it, holding the offer is the authorization and the wallet gets a code at once. */
        AuthorizationPage: {
            /**
             * Format: uri
             * @description The integrator's page (https) that signs the person in and asks for consent. The authorization endpoint sends the browser there with the query parameters `interaction` (a one-time handle, valid 10 minutes), `transaction_id` (or, for a wallet-initiated request, `credential_configuration_id`), and who asks: `client_id`, `redirect_uri` and `wallet_attested`, which the consent step must show; the integrator's backend then calls Authorizations_Complete and sends the browser to the `redirectTo` it returns. With a page, wallets may also start the code flow themselves (no offer).
             * @example https://login.acme.example/credential-consent
             */
            url: string;
        };
        /**
         * @description The redirect URIs wallets may name in the authorization code flow, compared exactly (RFC 9700 §4.1.1); a pushed authorization request with any other is refused (400 invalid_request).
         * @example [
         *       "https://wallet.example.org/callback",
         *       "eudi-openid4ci://authorize"
         *     ]
         */
        AllowedRedirectUris: string[];
        /** @description Encrypted credential requests and responses (OpenID4VCI §10): the issuer publishes an ECDH-ES P-256 key in `credential_request_encryption` and answers an encrypted request that names a key in `credential_response_encryption` with an `application/jwt` JWE (A128GCM or A256GCM, no compression). */
        IssuerCredentialEncryptionSettings: {
            /**
             * @description true: every credential request must come encrypted and ask for an encrypted response (`encryption_required`). false: wallets may choose.
             * @example false
             */
            required: boolean;
        };
        /** @description Who holds the private keys made for this issuer from now on (its first signing key, prepared and rotated keys), for every purpose or per purpose. Replaced as a whole. Keys made before keep their custody: an issuer moves into an HSM by changing this, then rotating (Issuers_PrepareSigningKey, Issuers_SetSigningCertificate with key next, Issuers_RotateSigningKey). */
        KeyCustody: {
            /**
             * @description `software`: keys are made in the service and kept sealed under its master key. `pkcs11`: keys are generated inside the platform's hardware security module (PKCS#11 token) and never leave it; available when the platform is configured with one.
             * @example pkcs11
             * @enum {string}
             */
            provider: "software" | "pkcs11";
            tokenLabel?: string | null;
            /** @description Per key purpose, where its keys are made, overriding `provider`/`tokenLabel` for that purpose; purposes left out follow them. */
            purposes?: {
                /** @description Credential signing keys (current, next, retired); they also sign status list tokens without a separate key, signed issuer metadata and certificate signing requests. */
                credentialSigning?: components["schemas"]["KeyCustodyChoice"];
                /** @description The separate status list signing key (statusListSigning.separateKey). */
                statusListSigning?: components["schemas"]["KeyCustodyChoice"];
                /** @description Credential request encryption (ECDH-ES) keys (credentialEncryption). */
                credentialRequestEncryption?: components["schemas"]["KeyCustodyChoice"];
            };
        };
        /** @description Who holds the keys of one purpose, and in which token. */
        KeyCustodyChoice: {
            /**
             * @description `software`: keys are made in the service and kept sealed under its master key. `pkcs11`: keys are generated inside the platform's hardware security module (PKCS#11 token) and never leave it; available when the platform is configured with one.
             * @example pkcs11
             * @enum {string}
             */
            provider: "software" | "pkcs11";
            tokenLabel?: string | null;
        };
        /** @description Which key signs the issuer's status list tokens. */
        StatusListSigningSettings: {
            /**
             * @description true: status list tokens are signed with a key of their own (made in the issuer's key custody, published in the issuer's JWKS beside the credential signing keys, without a certificate chain); false: with the credential signing key (the default).
             * @example true
             */
            separateKey: boolean;
        };
        /** @description One claim of the credential's schema. */
        ClaimDefinition: {
            /**
             * @description Claim path from the credential's top level, one name per level.
             * @example [
             *       "address",
             *       "country"
             *     ]
             */
            path: string[];
            /**
             * @description Value type; `date` is an ISO 8601 full date (YYYY-MM-DD) string.
             * @example string
             * @enum {string}
             */
            type: "string" | "number" | "integer" | "boolean" | "date" | "object" | "array";
            /**
             * @description Whether issuance must supply this claim.
             * @default false
             * @example true
             */
            required?: boolean;
            /**
             * @description Whether the holder may disclose this claim selectively.
             * @default true
             * @example true
             */
            selectivelyDisclosable?: boolean;
            /** @description Labels per locale for wallets. */
            display?: components["schemas"]["ClaimDisplay"][];
            constraints?: components["schemas"]["ClaimConstraints"];
        };
        /** @description Wallet-facing label of a claim in one locale. */
        ClaimDisplay: {
            /**
             * @description BCP 47 language tag.
             * @example en-GB
             */
            locale: string;
            /**
             * @description Label wallets show for the claim in this locale.
             * @example Date of birth
             */
            name: string;
        };
        /** @description Checks a claim value must pass at issuance. */
        ClaimConstraints: {
            /**
             * @description Allowed values; each of the claim's type.
             * @example [
             *       "NL",
             *       "BE",
             *       "DE"
             *     ]
             */
            enum?: (string | number | boolean)[];
            /**
             * @description ECMAScript regular expression (Unicode mode) a string or date value must match.
             * @example ^[A-Z]{2}$
             */
            pattern?: string;
            /**
             * @description Smallest allowed value (number and integer claims).
             * @example 0
             */
            minimum?: number;
            /**
             * @description Largest allowed value (number and integer claims).
             * @example 150
             */
            maximum?: number;
            /**
             * @description Longest allowed value in characters (string and date claims).
             * @example 100
             */
            maxLength?: number;
        };
        /** @description One credential the holder is asked to present. */
        VerificationPolicyCredential: {
            /**
             * @description Id of this credential within the policy (a DCQL credential query id).
             * @example pid
             */
            id: string;
            /**
             * @description Accepted SD-JWT VC types (`vct`). Each must be the credentialType of a credential configuration in this environment, unless the credential trusts an external issuer (jwksUri, credentialIssuer, x5cRoot or trustSourceId).
             * @example [
             *       "https://credentials.example.com/pid"
             *     ]
             */
            credentialTypes: string[];
            /**
             * @description Issuers whose credentials are accepted.
             * @example [
             *       {
             *         "issuerId": "iss_01jd5x6c3v8w9y0z1a2b3c4d5e"
             *       }
             *     ]
             */
            trustedIssuers: ({
                /**
                 * @description An issuer of this tenant and environment.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
            } | {
                /**
                 * Format: uri
                 * @description https URL of the external issuer's JWKS (public keys that sign its credentials).
                 * @example https://issuer.example.com/.well-known/jwks.json
                 */
                jwksUri: string;
            } | {
                /**
                 * Format: uri
                 * @description The external issuer's identifier (the credentials' `iss`); its keys are read from its SD-JWT VC issuer metadata at `/.well-known/jwt-vc-issuer` (path inserted before the identifier's path).
                 * @example https://issuer.example.com/tenant-1
                 */
                credentialIssuer: string;
            } | {
                /** @description PEM X.509 CA root certificate; credentials whose x5c chain ends at it (RFC 5280 path validation) are trusted. */
                x5cRoot: string;
            } | {
                /**
                 * @description A trust source (TrustSources_Create) of this tenant and environment: an ETSI trusted list whose last good copy names the issuers' CAs.
                 * @example ts_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                trustSourceId: string;
                /**
                 * @description The ETSI service type (ServiceTypeIdentifier URI) whose services' certificates are trusted, with status granted (or, in a TS 119 602 list, no status) at verification time: e.g. `http://uri.etsi.org/TrstSvc/Svctype/CA/QC` or `http://uri.etsi.org/19602/SvcType/PID/Issuance`. Credentials whose x5c chain ends at one of them (RFC 5280 path validation) are trusted.
                 * @example http://uri.etsi.org/19602/SvcType/PID/Issuance
                 */
                serviceType: string;
            })[];
            /**
             * @description Claims the holder must disclose.
             * @default []
             * @example [
             *       [
             *         "given_name"
             *       ],
             *       [
             *         "age_equal_or_over",
             *         "18"
             *       ]
             *     ]
             */
            requiredClaims?: (string | number | null)[][];
            /**
             * @description Claims requested when available.
             * @default []
             * @example [
             *       [
             *         "family_name"
             *       ]
             *     ]
             */
            optionalClaims?: (string | number | null)[][];
            /**
             * @description Values some requested claims must have (DCQL `values`): each path is one of requiredClaims or optionalClaims. A presentation disclosing such a claim with none of its values is rejected (`claim_value_mismatch`).
             * @default []
             * @example [
             *       {
             *         "path": [
             *           "age_over_18"
             *         ],
             *         "values": [
             *           true
             *         ]
             *       }
             *     ]
             */
            claimValues?: components["schemas"]["VerificationPolicyClaimValues"][];
            /**
             * @description Alternative combinations of optionalClaims, most preferred first (DCQL `claim_sets`): the holder discloses every requiredClaims entry and all claims of one combination, else the presentation is rejected (`missing_required_claims`). Null: optional claims are simply optional.
             * @default null
             * @example [
             *       [
             *         [
             *           "birthdate"
             *         ]
             *       ],
             *       [
             *         [
             *           "age_over_18"
             *         ]
             *       ]
             *     ]
             */
            claimSets?: (string | number | null)[][][] | null;
            /**
             * @description Accept several credentials for this entry (DCQL `multiple`); otherwise an answer with more than one is rejected (`too_many_presentations`).
             * @default false
             * @example false
             */
            multiple?: boolean;
            /**
             * @description Require proof of possession of the holder key (key binding JWT); false is sent as DCQL `require_cryptographic_holder_binding: false` and accepts credentials without a holder key (`cnf`) presented without a key binding JWT.
             * @default true
             * @example true
             */
            holderBindingRequired?: boolean;
            /**
             * @description Check the credential's status list (revocation).
             * @default true
             * @example true
             */
            checkStatus?: boolean;
            /**
             * @description Refuse credentials issued longer ago than this many days; null for no limit.
             * @default null
             * @example 365
             */
            maxCredentialAgeDays?: number | null;
            /**
             * @description Also accept a credential whose vct extends one of credentialTypes, as the SD-JWT VC Type Metadata at each type's https URL says (every link fetched and, where an integrity value is given, matched). The link is asserted by whoever hosts the type's metadata, not signed by the issuer; trust still comes from trustedIssuers alone.
             * @default false
             * @example false
             */
            acceptExtendedTypes?: boolean;
        };
        /** @description The values a requested claim must have. */
        VerificationPolicyClaimValues: {
            /**
             * @description Claims path pointer (OpenID4VP DCQL): claim names, with non-negative integers or null to select array elements.
             * @example [
             *       "address",
             *       "country"
             *     ]
             */
            path: (string | number | null)[];
            /**
             * @description Accepted values: strings, integers or booleans, matched exactly.
             * @example [
             *       true
             *     ]
             */
            values: (string | number | boolean)[];
        };
        /** @description A DCQL credential set. */
        VerificationPolicyCredentialSet: {
            /**
             * @description Alternative combinations of credential ids; any one option satisfies the set.
             * @example [
             *       [
             *         "pid"
             *       ],
             *       [
             *         "mdl"
             *       ]
             *     ]
             */
            options: string[][];
            /**
             * @description Whether the set must be satisfied.
             * @default true
             * @example true
             */
            required?: boolean;
        };
        /** @description An attestation about the verifier (OpenID4VP §5.1 `verifier_info`), e.g. a registration certificate, that wallets may use for authorization decisions or show in the consent dialog. */
        VerificationPolicyVerifierInfo: {
            /**
             * @description What the attestation is and how it is encoded, an identifier of the wallet's ecosystem (e.g. a registration certificate's format).
             * @example registration_cert
             */
            format: string;
            /**
             * @description The attestation: a string (e.g. a signed JWT) or an object, passed to the wallet as given.
             * @example eyJhbGciOiJFUzI1NiIsInR5cCI6InJjLXJwK2p3dCJ9…
             */
            data: string | {
                [key: string]: unknown;
            };
            /**
             * @description The policy credentials it is relevant to; omitted: all of them.
             * @example [
             *       "pid"
             *     ]
             */
            credentialIds?: string[];
        };
        /** @description One transaction data object for the wallet (OpenID4VP §5.1). */
        TransactionData: {
            /**
             * @description The transaction data type (collision-resistant name recommended).
             * @example https://pay.example/payment
             */
            type: string;
            /**
             * @description Ids of the policy's credentials (DCQL credential query ids) that may authorise it; the wallet uses one. Each must require holder binding.
             * @example [
             *       "pid"
             *     ]
             */
            credentialIds: string[];
            /**
             * @description The type's own members, sent as top-level members of the object.
             * @example {
             *       "amount": "42.00",
             *       "currency": "EUR",
             *       "payee": "Acme Shop"
             *     }
             */
            fields?: {
                [key: string]: unknown;
            };
        };
        /** @description Start the verification for the browser's Digital Credentials API (OpenID4VP 1.0 Appendix A) instead of a wallet link: the response carries `dcApiRequest`, and the page's result is handed back with VerificationSessions_SubmitDcApiResponse. */
        CreateVerificationDcApiOptions: {
            /**
             * @description The origins of the pages that call `navigator.credentials.get` with this request: `expected_origins` of a signed request; for an unsigned one, the origins whose `origin:<origin>` client identifier the presentation's audience may name.
             * @example [
             *       "https://shop.example.com"
             *     ]
             */
            origins: string[];
            /**
             * @description Sign the request (`openid4vp-v1-signed`, with the verifier certificate, as for request_uri); false sends `openid4vp-v1-unsigned` (the policy must allow it).
             * @default true
             * @example true
             */
            signed?: boolean;
            /**
             * @description Sign the request once per client identifier (`openid4vp-v1-multisigned`, OpenID4VP 1.0 Appendix A.3.2, JWS JSON Serialization), so that wallets of different trust frameworks each find a client identifier they accept: `x509_hash` and `x509_san_dns` (the verifier certificate, `x5c`; `x509_san_dns` needs the certificate to name the public host, else 409 VerifierCertificateMismatch) and `decentralized_identifier` (the policy's DID, `did:jwk` or `did:web` by its `didMethod`, of the same key; `kid`). All signatures are made with the verifier certificate's key. `client_id` and `verifier_info` travel in each signature's protected header; the registration certificate goes only with the X.509 signatures. The presentations' audience is `origin:<origin>` (Appendix A.4). Needs `signed: true`; without it the request has one signature under the policy's `clientIdPrefix`.
             * @example [
             *       "x509_hash",
             *       "decentralized_identifier"
             *     ]
             */
            clientIdPrefixes?: ("x509_hash" | "x509_san_dns" | "decentralized_identifier")[];
        };
        /** @description Who holds the private key of the requested access certificate, and so the key request objects are signed with once it is imported. */
        VerifierKeyCustody: {
            /**
             * @description `software` (default): the key is made in the service and sealed under its master key. `pkcs11`: it is generated inside the platform's hardware security module and never leaves it (the CSR and every request object are signed there); available when the platform is configured with one.
             * @example pkcs11
             * @enum {string}
             */
            provider: "software" | "pkcs11";
            tokenLabel?: string | null;
        };
        /** @description How the credential offer reaches the wallet. */
        IssuanceDelivery: {
            /**
             * @description `reference`: the offer link carries `credential_offer_uri` (small QR codes); `value`: the offer itself.
             * @default reference
             * @example reference
             * @enum {string}
             */
            offerBy?: "reference" | "value";
            /**
             * @description `preAuthorizedCode`: the offer carries a pre-authorized code the wallet redeems directly. `authorizationCode`: the offer carries an `issuer_state`, and the wallet runs the OAuth authorization code flow (pushed authorization request, PKCE S256, optionally DPoP), as HAIP wallets do. A `txCode` applies to `preAuthorizedCode` only.
             * @default preAuthorizedCode
             * @example preAuthorizedCode
             * @enum {string}
             */
            grant?: "preAuthorizedCode" | "authorizationCode";
            /** @description Ask for a transaction code (tx_code) that the person enters in the wallet. */
            txCode?: {
                /**
                 * @description Characters the wallet asks the person for.
                 * @default numeric
                 * @example numeric
                 * @enum {string}
                 */
                inputMode?: "numeric" | "text";
                /**
                 * @description Number of characters.
                 * @default 6
                 * @example 6
                 */
                length?: number;
                /**
                 * @description Hint the wallet shows, e.g. where the code was sent.
                 * @example Sent to you by SMS
                 */
                description?: string;
            };
            /**
             * @description The custom URL scheme of the link that invokes the wallet: `openid` (default) for `openid-credential-offer://` (OpenID4VCI §4.1), `haip` for `haip-vci://` (HAIP), which wallets built for the HAIP profile register. The link's parameters are the same.
             * @default openid
             * @example openid
             * @enum {string}
             */
            invocation?: "openid" | "haip";
            /**
             * @description Lifetime of the offer; default 15 minutes.
             * @example 900
             */
            expiresInSeconds?: number;
            /**
             * @description Deferred issuance (OpenID4VCI §9): create the transaction without `claims` and supply them later with IssuanceTransactions_SupplyClaims, e.g. after a review. A wallet that asks for the credential before then gets a `transaction_id` and polls the deferred credential endpoint, for up to `deferredWaitSeconds`.
             * @default false
             * @example false
             */
            deferred?: boolean;
            /**
             * @description With `deferred`: how long the transaction waits for its claims once the wallet has asked (the offer itself stays redeemable for `expiresInSeconds` only); default 3 days.
             * @example 259200
             */
            deferredWaitSeconds?: number;
        };
        ManagementResourceOfOrganisation: {
            data: components["schemas"]["Organisation"];
        };
        /** @description An organisation that operates one or more issuers. */
        Organisation: {
            /**
             * @description Caller-chosen slug, unique per tenant and environment; the path key.
             * @example acme-bank
             */
            reference: string;
            /**
             * @description Name shown to people.
             * @example Acme Bank
             */
            displayName: string;
            /**
             * @description Registered legal name.
             * @example Acme Bank N.V.
             */
            legalName: string | null;
            /**
             * @description ISO 3166-1 alpha-2 country of registration.
             * @example NL
             */
            country: string | null;
            /** @description Registry identifiers (LEI, VAT, …). */
            identifiers: {
                /**
                 * @description Identifier scheme, e.g. LEI, VAT, EUID.
                 * @example LEI
                 */
                scheme: string;
                /**
                 * @description The identifier in that scheme.
                 * @example 5493001KJTIIGC8Y1R12
                 */
                value: string;
            }[];
            /**
             * @description Environment the resource lives in.
             * @example sandbox
             * @enum {string}
             */
            environment: "sandbox" | "production";
            /**
             * @description Creation time (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
            /**
             * @description Last change (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            updatedAt: string;
        };
        ManagementCollectionOfOrganisation: {
            /** @description This page's items, oldest first. */
            data: components["schemas"]["Organisation"][];
            /** @description Cursor of the next page; null on the last page. */
            nextCursor: string | null;
        };
        ManagementResourceOfIssuer: {
            data: components["schemas"]["Issuer"];
        };
        /** @description An issuer of credentials, operated by an organisation. */
        Issuer: {
            /**
             * @description Identifier of the issuer.
             * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            id: string;
            /**
             * @description Caller-chosen slug, unique per tenant and environment; the path key.
             * @example acme-bank
             */
            organisationReference: string;
            /**
             * @description Name of the issuer shown in the console and to integrators.
             * @example Acme Bank
             */
            displayName: string;
            /** @description What the issuer issues, for people; null when not set. */
            description: string | null;
            /** @description https URL of the issuer's logo; null when not set. */
            logoUri: string | null;
            /** @description Wallet-facing display metadata per locale. */
            display: components["schemas"]["IssuerDisplay"][];
            /**
             * @description `draft` until activated; `active` issuers can issue credentials.
             * @example draft
             * @enum {string}
             */
            status: "draft" | "active";
            /**
             * @description The OpenID4VCI credential issuer identifier (URL) wallets see as `iss`.
             * @example https://credentials.example/issuers/iss_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            credentialIssuer: string;
            signingKey: components["schemas"]["IssuerSigningKey"];
            /** @description Keys replaced by Issuers_RotateSigningKey and kept: published next to `signingKey` in the issuer's JWKS, newest first. */
            previousSigningKeys: components["schemas"]["IssuerPreviousSigningKey"][];
            /** @description The key prepared for the next rotation (Issuers_PrepareSigningKey); null when none. */
            nextSigningKey: components["schemas"]["IssuerNextSigningKey"] | null;
            /**
             * @description When true, the token endpoint answers a request without a DPoP proof with 400 invalid_dpop_proof, so every access token is DPoP-bound (HAIP via FAPI 2.0: sender-constrained tokens only). Wallets that do not do DPoP then cannot redeem offers of this issuer.
             * @example false
             */
            requireDpop: boolean;
            /**
             * @description When true, every DPoP proof sent to this issuer (token, PAR, credential and notification endpoints) must carry a nonce the issuer provided: a proof without one is answered use_dpop_nonce with a DPoP-Nonce header to retry with (RFC 9449 §8, §9), and every successful response of those endpoints and of the nonce endpoint carries a fresh DPoP-Nonce. A nonce is accepted for 300 s. It bounds how far ahead a stolen key's proofs can be made; bearer tokens are not affected.
             * @example false
             */
            requireDpopNonce: boolean;
            /** @description Which wallet providers' attestations this issuer accepts; null when it takes none. */
            walletAttestation: components["schemas"]["IssuerWalletAttestationOutput"] | null;
            /** @description Which key attesters this issuer trusts for holder keys; null when it reads no key attestations. */
            keyAttestation: components["schemas"]["IssuerKeyAttestationOutput"] | null;
            /** @description The integrator's sign-in and consent page for the authorization code flow; null when the wallet gets its code at once. */
            authorizationPage: components["schemas"]["AuthorizationPage"] | null;
            /** @description The redirect URIs wallets may use in the authorization code flow; null when any is taken. */
            allowedRedirectUris: components["schemas"]["AllowedRedirectUris"] | null;
            /** @description Encrypted credential requests and responses; null when not offered. */
            credentialEncryption: components["schemas"]["IssuerCredentialEncryption"] | null;
            /** @description The certificate chain of `signingKey`, sent as `x5c`; null when none is set. */
            signingCertificate: components["schemas"]["IssuerSigningCertificate"] | null;
            keyCustody: components["schemas"]["IssuerKeyCustody"];
            statusListSigning: components["schemas"]["StatusListSigning"];
            /**
             * @description Environment the resource lives in.
             * @example sandbox
             * @enum {string}
             */
            environment: "sandbox" | "production";
            /**
             * @description Creation time (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
            /**
             * @description Last change (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            updatedAt: string;
            /**
             * @description Activation time (ISO 8601); null while draft.
             * @example 2026-08-30T12:05:00.000Z
             */
            activatedAt: string | null;
        };
        /** @description The issuer's credential signing key (public part). */
        IssuerSigningKey: {
            /**
             * @description Key id: the RFC 7638 JWK SHA-256 thumbprint of the public key.
             * @example NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs
             */
            kid: string;
            /**
             * @description Signing algorithm.
             * @example ES256
             * @constant
             */
            alg: "ES256";
            /**
             * @description Public key as a JWK (EC P-256). The private key never leaves the service.
             * @example {
             *       "kty": "EC",
             *       "crv": "P-256",
             *       "x": "…",
             *       "y": "…",
             *       "kid": "…",
             *       "alg": "ES256",
             *       "use": "sig"
             *     }
             */
            publicJwk: {
                [key: string]: unknown;
            };
        };
        /** @description A signing key replaced by a rotation, still published so that credentials it signed keep verifying. Nothing is signed with it any more. */
        IssuerPreviousSigningKey: {
            /**
             * @description Key id: the RFC 7638 JWK SHA-256 thumbprint of the public key.
             * @example NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs
             */
            kid: string;
            /**
             * @description Signing algorithm.
             * @example ES256
             * @constant
             */
            alg: "ES256";
            /**
             * @description Public key as a JWK (EC P-256). The private key never leaves the service.
             * @example {
             *       "kty": "EC",
             *       "crv": "P-256",
             *       "x": "…",
             *       "y": "…",
             *       "kid": "…",
             *       "alg": "ES256",
             *       "use": "sig"
             *     }
             */
            publicJwk: {
                [key: string]: unknown;
            };
            /**
             * @description When Issuers_RotateSigningKey replaced it (ISO 8601).
             * @example 2026-11-22T12:00:00.000Z
             */
            retiredAt: string;
        };
        /** @description The key the next Issuers_RotateSigningKey switches to, with its certificate chain if set. Published in the issuer's JWKS ahead of use; nothing is signed with it yet. */
        IssuerNextSigningKey: {
            /**
             * @description Key id: the RFC 7638 JWK SHA-256 thumbprint of the public key.
             * @example NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs
             */
            kid: string;
            /**
             * @description Signing algorithm.
             * @example ES256
             * @constant
             */
            alg: "ES256";
            /**
             * @description Public key as a JWK (EC P-256). The private key never leaves the service.
             * @example {
             *       "kty": "EC",
             *       "crv": "P-256",
             *       "x": "…",
             *       "y": "…",
             *       "kid": "…",
             *       "alg": "ES256",
             *       "use": "sig"
             *     }
             */
            publicJwk: {
                [key: string]: unknown;
            };
            /**
             * @description When Issuers_PrepareSigningKey made it (ISO 8601).
             * @example 2026-11-22T12:00:00.000Z
             */
            preparedAt: string;
            /** @description Its certificate chain (Issuers_SetSigningCertificate with key next); null when none. */
            signingCertificate: components["schemas"]["IssuerSigningCertificate"] | null;
        };
        /** @description The X.509 certificate chain of the current signing key (Issuers_SetSigningCertificate), sent in the `x5c` header of credentials and status list tokens. */
        IssuerSigningCertificate: {
            /**
             * @description The chain as set, PEM, leaf first.
             * @example -----BEGIN CERTIFICATE-----
             *     MIIB…
             *     -----END CERTIFICATE-----
             */
            certificateChainPem: string;
            /**
             * @description Leaf subject.
             * @example CN=Acme Bank, O=Acme
             */
            subject: string;
            /**
             * @description Leaf issuer (the CA).
             * @example CN=Acme Issuing CA
             */
            issuer: string;
            /**
             * @description Leaf serial number (hex).
             * @example 4F3A…
             */
            serialNumber: string;
            /**
             * @description Start of the chain's validity: the latest notBefore of its certificates (ISO 8601).
             * @example 2026-11-22T00:00:00.000Z
             */
            notBefore: string;
            /**
             * @description End of the chain's validity: the earliest notAfter of its certificates (ISO 8601).
             * @example 2027-11-22T00:00:00.000Z
             */
            notAfter: string;
            /**
             * @description Certificates sent in `x5c`: the chain without a trailing self-signed root (HAIP).
             * @example 1
             */
            x5cLength: number;
            /**
             * @description True while every certificate of the chain is valid: credentials and status list tokens carry `x5c`. Outside that time they go out without it (kid only).
             * @example true
             */
            inUse: boolean;
        };
        IssuerCredentialEncryption: {
            /**
             * @description true: every credential request must come encrypted and ask for an encrypted response (`encryption_required`). false: wallets may choose.
             * @example false
             */
            required: boolean;
            /**
             * @description The key wallets encrypt credential requests to (its `kid`, `alg: ECDH-ES`, `use: enc`), as published in the issuer metadata. Made when encryption is turned on; the private half is sealed at rest and never leaves the service.
             * @example {
             *       "kty": "EC",
             *       "crv": "P-256",
             *       "x": "…",
             *       "y": "…",
             *       "kid": "…",
             *       "alg": "ECDH-ES",
             *       "use": "enc"
             *     }
             */
            publicJwk: {
                [key: string]: unknown;
            };
            /** @description The key Issuers_RotateCredentialEncryptionKey replaced, while requests to it are still decrypted; null otherwise. */
            previousKey: {
                /** @description The replaced key (no longer published). */
                publicJwk: {
                    [key: string]: unknown;
                };
                /**
                 * @description Until when requests encrypted to it are still decrypted (ISO 8601).
                 * @example 2026-11-24T12:00:00.000Z
                 */
                acceptedUntil: string;
            } | null;
        };
        /** @description Who holds the private keys made for this issuer from now on: the default (`provider`, `tokenLabel`) and the choice in effect per key purpose. Keys made before keep their custody. */
        IssuerKeyCustody: {
            /**
             * @description `software`: keys are made in the service and kept sealed under its master key. `pkcs11`: keys are generated inside the platform's hardware security module (PKCS#11 token) and never leave it; available when the platform is configured with one.
             * @example pkcs11
             * @enum {string}
             */
            provider: "software" | "pkcs11";
            /**
             * @description `pkcs11`: the token keys of this purpose are made in; null for `software` (and for issuers whose custody was chosen before token labels were recorded: the platform's token).
             * @example issuers
             */
            tokenLabel: string | null;
            /** @description The custody in effect for each key purpose (`provider` unless overridden). */
            purposes: {
                credentialSigning: components["schemas"]["EffectiveKeyCustodyChoice"];
                statusListSigning: components["schemas"]["EffectiveKeyCustodyChoice"];
                credentialRequestEncryption: components["schemas"]["EffectiveKeyCustodyChoice"];
            };
        };
        /** @description Where keys of one purpose are made from now on. */
        EffectiveKeyCustodyChoice: {
            /**
             * @description `software`: keys are made in the service and kept sealed under its master key. `pkcs11`: keys are generated inside the platform's hardware security module (PKCS#11 token) and never leave it; available when the platform is configured with one.
             * @example pkcs11
             * @enum {string}
             */
            provider: "software" | "pkcs11";
            /**
             * @description `pkcs11`: the token keys of this purpose are made in; null for `software` (and for issuers whose custody was chosen before token labels were recorded: the platform's token).
             * @example issuers
             */
            tokenLabel: string | null;
        };
        /** @description Which key signs the issuer's status list tokens. */
        StatusListSigning: {
            /**
             * @description true: status list tokens are signed with a key of their own (made in the issuer's key custody, published in the issuer's JWKS beside the credential signing keys, without a certificate chain); false: with the credential signing key (the default).
             * @example true
             */
            separateKey: boolean;
            /** @description The separate status list signing key (public JWK with `kid`); null when the credential signing key signs. */
            publicJwk: {
                [key: string]: unknown;
            } | null;
        };
        ManagementCollectionOfIssuer: {
            /** @description This page's items, oldest first. */
            data: components["schemas"]["Issuer"][];
            /** @description Cursor of the next page; null on the last page. */
            nextCursor: string | null;
        };
        ApiEnvelopeOfIssuerCertificateSigningRequest: {
            data: components["schemas"]["IssuerCertificateSigningRequest"];
        };
        IssuerCertificateSigningRequest: {
            /**
             * @description PKCS#10 request (PEM) for the current signing key, signed with it. Subject CN = the issuer's name, O = its organisation's (each cut to 64 characters); subjectAltName = `credentialIssuer` (URI); key usage digitalSignature.
             * @example -----BEGIN CERTIFICATE REQUEST-----
             *     MIIB…
             *     -----END CERTIFICATE REQUEST-----
             */
            certificateSigningRequestPem: string;
            /**
             * @description The key the request is for; a rotation makes the request stale.
             * @example NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs
             */
            signingKid: string;
        };
        ApiEnvelopeOfIssuerReadinessResponse: {
            data: components["schemas"]["IssuerReadinessResponse"];
        };
        /** @description What the issuer still needs before it can be activated. */
        IssuerReadinessResponse: {
            /**
             * @description Identifier of the issuer.
             * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            issuerId: string;
            /**
             * @description True when every item is satisfied.
             * @example false
             */
            ready: boolean;
            /** @description One item per requirement, in a fixed order. */
            items: components["schemas"]["IssuerReadinessItem"][];
            /** @description The environment's relying-party certificates (access certificate, then the default registration certificate, then each registration certificate added by id, for the tenant or for a relying party it acts for) and their expiry. Shown beside the checklist: verification needs them, issuance does not, so they do not count towards `ready` nor gate Issuers_Activate. */
            relyingPartyCertificates: components["schemas"]["RelyingPartyCertificateExpiry"][];
        };
        /** @description One requirement of the readiness checklist. */
        IssuerReadinessItem: {
            /**
             * @description Stable id of the requirement.
             * @example display-metadata
             * @enum {string}
             */
            id: "organisation" | "display-metadata" | "signing-key" | "status-list-signing-key" | "credential-request-encryption-key" | "active-credential-configuration" | "status-list" | "public-base-url";
            /**
             * @description The requirement, for people.
             * @example Display metadata complete
             */
            title: string;
            /**
             * @description Whether the requirement is met.
             * @example outstanding
             * @enum {string}
             */
            status: "satisfied" | "outstanding";
            /**
             * @description What was checked and, when outstanding, what is missing.
             * @example Add at least one display entry with a locale and a name.
             */
            detail: string;
            /** @description What to do next; present when outstanding and fixable through the API. */
            action?: {
                /**
                 * @description Operation that resolves it.
                 * @example Issuers_Update
                 */
                operationId: string;
                /**
                 * @description HTTP method.
                 * @example PATCH
                 */
                method: string;
                /**
                 * @description Path to call (with the api-version query parameter, as every management call).
                 * @example /management/issuers/iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                path: string;
                /**
                 * @description What to send.
                 * @example Send {"display":[{"locale":"en","name":"Acme Bank"}]}.
                 */
                hint: string;
            };
        };
        /** @description The expiry of one relying-party certificate of the issuer's environment. */
        RelyingPartyCertificateExpiry: {
            /**
             * @description Which certificate: the verifier's access certificate (WRPAC) or the relying party's registration certificate (WRPRC).
             * @example access-certificate
             * @enum {string}
             */
            id: "access-certificate" | "registration-certificate";
            /**
             * @description The certificate, for people.
             * @example Access certificate
             */
            title: string;
            /**
             * @description valid; expiring: expires within 30 days (a warning); expired: past its end (a failure); absent: none installed; unusable: the access certificate's key is in a key store that is unreachable, missing there, or not configured in this process, so request objects cannot be signed (a failure; the detail says which).
             * @example expiring
             * @enum {string}
             */
            status: "valid" | "expiring" | "expired" | "absent" | "unusable";
            /**
             * @description When it expires (ISO 8601); null when absent or when the registration names no `exp`.
             * @example 2027-01-31T00:00:00.000Z
             */
            expiresAt: string | null;
            /**
             * @description What was found and, when expiring or expired, what to do.
             * @example The access certificate for VATFI-12345678 expires in 12 day(s); import a renewed one.
             */
            detail: string;
            /**
             * @description For a registration certificate added by id (not the environment's default one): its id, as VerifierRegistrationCertificates_GetById names it.
             * @example vreg_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            registrationCertificateId?: string;
            /**
             * @description With `registrationCertificateId`: the relying party it is held for as an intermediary, null for the tenant's own.
             * @example rp_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            relyingPartyId?: string | null;
        };
        ManagementResourceOfPublicCredentialConfigurationResponse: {
            data: components["schemas"]["PublicCredentialConfigurationResponse"];
        };
        /** @description What an issuer issues: credential type, claims schema and issuance settings. */
        PublicCredentialConfigurationResponse: {
            /**
             * @description Identifier of the configuration.
             * @example ccf_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            id: string;
            /**
             * @description Caller-chosen identifier, unique per tenant and environment; callers name it at issuance.
             * @example membership-card
             */
            identifier: string;
            /**
             * @description Name of the credential shown to people.
             * @example Membership card
             */
            displayName: string;
            /**
             * @description Identifier of the issuer.
             * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            issuerId: string;
            /**
             * @description Identifier of the schema this configuration implements (caller-defined, e.g. a URI).
             * @example https://schemas.acme.example/membership/v1
             */
            schemaId: string;
            /**
             * @description The SD-JWT VC `vct`. Defaults to `<credentialIssuer>/credentials/<identifier>`.
             * @example https://credentials.example/issuers/iss_01jd5x6c3v8w9y0z1a2b3c4d5e/credentials/membership-card
             */
            credentialType: string;
            /** @description Claims of the active version. */
            claims: components["schemas"]["ClaimDefinitionOutput"][];
            /**
             * Format: int32
             * @description Validity of issued credentials in days (int32, 1–36500).
             * @example 365
             */
            defaultLifetimeDays: number;
            /**
             * @description Credential format.
             * @example dc+sd-jwt
             * @constant
             */
            format: "dc+sd-jwt";
            /**
             * @description Signing algorithm.
             * @example ES256
             * @constant
             */
            signingAlgorithm: "ES256";
            /**
             * @description Credentials are bound to the holder's key.
             * @example true
             */
            holderBindingRequired: boolean;
            /**
             * @description Credentials carry a status list entry.
             * @example true
             */
            statusEnabled: boolean;
            /**
             * @description Extension: the `vct#integrity` every credential carries (SRI of the pinned Type Metadata document); null when the configuration's Type Metadata is not pinned.
             * @example null
             */
            typeMetadataIntegrity: string | null;
            /**
             * @description The version in use.
             * @example 1
             */
            activeVersion: number;
            /** @description Every version, oldest first. */
            versions: components["schemas"]["CredentialConfigurationVersion"][];
            /**
             * @description Environment the resource lives in.
             * @example sandbox
             * @enum {string}
             */
            environment: "sandbox" | "production";
            /**
             * @description Creation time (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
            /**
             * @description Last change (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            updatedAt: string;
        };
        /** @description One version of a configuration's claims. */
        CredentialConfigurationVersion: {
            /**
             * @description Version number, from 1.
             * @example 1
             */
            version: number;
            /**
             * @description `active` for the version in use.
             * @example active
             * @enum {string}
             */
            status: "active" | "superseded";
            /**
             * @description Why the version exists.
             * @example Initial version
             */
            reason: string | null;
            /**
             * @description Creation time (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
            /**
             * @description When the version last became the active one (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            activatedAt: string | null;
        };
        ManagementCollectionOfPublicCredentialConfigurationResponse: {
            /** @description This page's items, oldest first. */
            data: components["schemas"]["PublicCredentialConfigurationResponse"][];
            /** @description Cursor of the next page; null on the last page. */
            nextCursor: string | null;
        };
        ApiEnvelopeOfCredentialConfigurationVersionDetail: {
            data: components["schemas"]["CredentialConfigurationVersionDetail"];
        };
        /** @description One version of a configuration, with its claims. */
        CredentialConfigurationVersionDetail: {
            /**
             * @description Version number, from 1.
             * @example 1
             */
            version: number;
            /**
             * @description `active` for the version in use.
             * @example active
             * @enum {string}
             */
            status: "active" | "superseded";
            /**
             * @description Why the version exists.
             * @example Initial version
             */
            reason: string | null;
            /**
             * @description Creation time (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
            /**
             * @description When the version last became the active one (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            activatedAt: string | null;
            /** @description The version's claims schema. */
            claims: components["schemas"]["ClaimDefinitionOutput"][];
        };
        ManagementResourceOfPublicVerificationPolicyResponse: {
            data: components["schemas"]["PublicVerificationPolicyResponse"];
        };
        /** @description A server-managed verification policy. */
        PublicVerificationPolicyResponse: {
            /**
             * @description Caller-chosen identifier, unique per tenant and environment; named when starting a verification.
             * @example over-18
             */
            identifier: string;
            /**
             * @description Name shown to people.
             * @example Age over 18
             */
            displayName: string;
            /**
             * @description Default purpose shown to the holder.
             * @example Age check at checkout
             */
            purpose: string | null;
            /**
             * @description `active` policies can start verifications; `suspended` ones are refused until reactivated.
             * @example active
             * @enum {string}
             */
            status: "active" | "suspended";
            rules: components["schemas"]["VerificationPolicyRules"];
            /**
             * @description The version in use: displayName, purpose and rules above are this version's.
             * @example 1
             */
            activeVersion: number;
            /** @description Every version, oldest first. */
            versions: components["schemas"]["VerificationPolicyVersion"][];
            /**
             * @description Creation time (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
            /**
             * @description Last change (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            updatedAt: string;
        };
        /** @description What a verification under this policy asks for and accepts. */
        VerificationPolicyRules: {
            /** @description Credentials requested from the holder. */
            credentials: components["schemas"]["VerificationPolicyCredentialOutput"][];
            /**
             * @description Combinations of credentials that satisfy the request; null means all credentials.
             * @default null
             */
            credentialSets: components["schemas"]["VerificationPolicyCredentialSetOutput"][] | null;
            /**
             * @description OpenID4VP response mode; `direct_post.jwt` encrypts the wallet's response.
             * @default direct_post.jwt
             * @example direct_post.jwt
             * @enum {string}
             */
            responseMode: "direct_post.jwt" | "direct_post";
            /**
             * @description Verifications over the browser's Digital Credentials API (OpenID4VP Appendix A; response mode `dc_api.jwt` when `responseMode` is `direct_post.jwt`, else `dc_api`): `off`, `signed` only (`openid4vp-v1-signed` with `expected_origins`, as HAIP requires, or `openid4vp-v1-multisigned`), or `signed_or_unsigned` (also `openid4vp-v1-unsigned`, where the page's origin identifies the verifier).
             * @default signed_or_unsigned
             * @example signed
             * @enum {string}
             */
            dcApi: "off" | "signed" | "signed_or_unsigned";
            /**
             * @description How long a verification session stays open, 60–3600 seconds.
             * @default 600
             * @example 600
             */
            sessionLifetimeSeconds: number;
            /**
             * @description Client identifier prefix of the verifier in the wallet request: `x509_hash` (HAIP, hash of the verifier certificate) or `x509_san_dns` (the certificate's dNSName, which must be the public host, and that a DNS name, not an IP address; otherwise starting a verification fails with 409 VerifierCertificateMismatch), both with a signed request object; or `redirect_uri` (OpenID4VP §5.9.3, the low-assurance option for a verifier without a certificate: the client_id is the session's response URI and the unsigned request travels by value in `authorizationRequestUri`; `responseMode: direct_post` only, and no signed Digital Credentials API requests); or `decentralized_identifier` (§5.9.3: the client_id is the `did:jwk` of the verifier certificate's key, and request objects carry `kid` = its verification method instead of `x5c`).
             * @default x509_hash
             * @example x509_hash
             * @enum {string}
             */
            clientIdPrefix: "x509_hash" | "x509_san_dns" | "redirect_uri" | "decentralized_identifier";
            /**
             * @description The DID of a `decentralized_identifier` verifier: `jwk` (`did:jwk` of the verifier certificate's key; a new key is a new DID) or `web` (`did:web:<public host>:verifier:<tenantId>:<environment>`, whose DID document the platform serves at `<public base URL>/verifier/<tenantId>/<environment>/did.json` with the current verifier key; request objects carry `kid` = `<did>#<JWK thumbprint>`; the DID survives a certificate replacement). Only with `clientIdPrefix: decentralized_identifier`.
             * @default jwk
             * @example jwk
             * @enum {string}
             */
            didMethod: "jwk" | "web";
            /**
             * @description https URL the wallet returns the user to in same-device flows; null for none.
             * @default null
             * @example https://shop.example.com/checkout/verified
             */
            sameDeviceRedirectUri: string | null;
            /**
             * @description The relying party (RelyingParties_Create) this tenant acts for as an intermediary under this policy: verifications are recorded as its, carry its registration certificates in `verifier_info` (those `registrationCertificateIds` names, which must be its, or else all of its own) and may ask only for what they register. Absent: the tenant is itself the relying party (docs/api/relying-party-certificates.md, "Intermediaries").
             * @example rp_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            relyingPartyId?: string;
            /** @description The relying party's registration certificates (WRPRC, ETSI TS 119 475) verifications under this policy carry in `verifier_info` and are limited by: each DCQL credential query must be registered by at least one of them (409 NotRegistered otherwise). Absent: the environment's default registration certificate, if any (docs/api/relying-party-certificates.md). */
            registrationCertificateIds?: string[];
            /**
             * @description Attestations about the verifier sent with every request of this policy as `verifier_info` (OpenID4VP §5.1); null for none.
             * @default null
             */
            verifierInfo: components["schemas"]["VerificationPolicyVerifierInfo"][] | null;
            /**
             * @description When true, a wallet response whose presentation fails integrity or holder binding (issuer signature, disclosures, key binding JWT signature, `aud`, `nonce`, `iat`, `sd_hash`, transaction data hashes, a malformed `vp_token`) and so leaves the session `rejected` is answered at the response endpoint with HTTP 400 `{ error: "invalid_request" }` (OpenID4VP §8.5) instead of 200 and the redirect, so the wallet tells the holder at once. The session is decided exactly as with false (`rejected`, same reasons, event and webhooks). A presentation that is genuine but not accepted (untrusted issuer, expired, revoked, missing claims) and a wallet's own error response are still answered 200. Default false: every response the endpoint could process is answered 200.
             * @default false
             * @example false
             */
            reportInvalidPresentationsToWallet: boolean;
            /**
             * @description When true (needs `sameDeviceRedirectUri`), a session a wallet answered shows its `result` only to a Verifications_Get that passes the `response_code` its redirect delivered (OpenID4VP §13.3, §14.2: the result then goes to the browser the holder came back in, not to whoever started the session). For same-device use only: in a cross-device flow the redirect opens on the phone and the code never reaches the relying party's front end.
             * @default false
             * @example false
             */
            requireResponseCode: boolean;
        };
        /** @description One version of a verification policy. */
        VerificationPolicyVersion: {
            /**
             * @description Version number, from 1.
             * @example 1
             */
            version: number;
            /**
             * @description `active` for the version in use.
             * @example active
             * @enum {string}
             */
            status: "active" | "superseded";
            /**
             * @description Why the version exists.
             * @example Also accepts the mobile driving licence
             */
            reason: string | null;
            /**
             * @description Creation time (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
            /**
             * @description When the version last became the active one (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            activatedAt: string | null;
        };
        ManagementCollectionOfPublicVerificationPolicyResponse: {
            /** @description This page's items, oldest first. */
            data: components["schemas"]["PublicVerificationPolicySummary"][];
            /** @description Cursor of the next page; null on the last page. */
            nextCursor: string | null;
        };
        /** @description A verification policy as listed: the identifier to name when starting a verification. */
        PublicVerificationPolicySummary: {
            /**
             * @description Caller-chosen identifier, unique per tenant and environment; named when starting a verification.
             * @example over-18
             */
            identifier: string;
            /**
             * @description Name shown to people.
             * @example Age over 18
             */
            displayName: string;
            /**
             * @description `active` policies can start verifications; `suspended` ones are refused until reactivated.
             * @example active
             * @enum {string}
             */
            status: "active" | "suspended";
        };
        ApiEnvelopeOfVerificationPolicyVersionDetail: {
            data: components["schemas"]["VerificationPolicyVersionDetail"];
        };
        /** @description One version of a verification policy, with its content. */
        VerificationPolicyVersionDetail: {
            /**
             * @description Version number, from 1.
             * @example 1
             */
            version: number;
            /**
             * @description `active` for the version in use.
             * @example active
             * @enum {string}
             */
            status: "active" | "superseded";
            /**
             * @description Why the version exists.
             * @example Also accepts the mobile driving licence
             */
            reason: string | null;
            /**
             * @description Creation time (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
            /**
             * @description When the version last became the active one (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            activatedAt: string | null;
            /**
             * @description The version's name shown to people.
             * @example Age over 18
             */
            displayName: string;
            /**
             * @description The version's default purpose shown to the holder.
             * @example Age check at checkout
             */
            purpose: string | null;
            rules: components["schemas"]["VerificationPolicyRules"];
        };
        ApiEnvelopeOfVerificationSessionResponse: {
            data: components["schemas"]["VerificationSessionResponse"];
        };
        /** @description A verification session (OpenID4VP). */
        VerificationSessionResponse: {
            /**
             * @description The verification session's id.
             * @example vs_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            id: string;
            /**
             * @description Lifecycle state.
             * @example pending
             * @enum {string}
             */
            status: "pending" | "verified" | "rejected" | "expired" | "cancelled";
            /**
             * @description Identifier of the policy.
             * @example over-18
             */
            policy: string;
            /**
             * @description Why the claims are asked for, shown to the holder.
             * @example Age check at checkout
             */
            purpose: string | null;
            /**
             * @description Present when the verification was for a relying party this tenant acts for as an intermediary (its policy's `relyingPartyId` when it was created): the request named that relying party through its registration certificates in `verifier_info`.
             * @example rp_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            relyingPartyId?: string;
            /** @description `openid4vp://?client_id=…&request_uri=…`: what a QR code or same-device link carries. */
            authorizationRequestUri: string;
            /** @description URL of the signed request object. */
            requestUri: string;
            /**
             * @description When a pending session expires (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            expiresAt: string;
            /**
             * @description Creation time (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
            /** @description Present once the session is `verified` or `rejected`, unless withheld (`resultWithheld`). */
            result?: components["schemas"]["VerificationResult"];
            /** @description The transaction data the request asks the holder to authorise, as created. */
            transactionData?: components["schemas"]["TransactionData"][];
            dcApiRequest?: components["schemas"]["DcApiRequest"];
            /**
             * @description Present (true) when the session is decided but its policy shows the result only to a Verifications_Get that passes the `responseCode` its same-device redirect delivered (`requireResponseCode`). Do not act on `status` alone then.
             * @example true
             * @constant
             */
            resultWithheld?: true;
        };
        VerificationResult: {
            /**
             * @description When the session was decided (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            decidedAt: string;
            /**
             * @description The decision.
             * @enum {string}
             */
            outcome: "verified" | "rejected";
            /** @description Why the outcome is `rejected`; with `verified`, why presentations were discarded (OpenID4VP §8.6). */
            reasons?: components["schemas"]["VerificationReason"][];
            /** @description The verified credentials, with only the claims the policy asked for. */
            credentials: components["schemas"]["VerifiedCredential"][];
        };
        VerificationReason: {
            /**
             * @description Stable reason code.
             * @example kb_nonce_mismatch
             */
            code: string;
            /** @description Human-readable explanation. */
            message: string;
            /**
             * @description The policy credential id the reason concerns.
             * @example pid
             */
            credentialQueryId?: string;
        };
        VerifiedCredential: {
            /**
             * @description The policy credential id it answers.
             * @example pid
             */
            credentialQueryId: string;
            /**
             * @description The credential's `vct`.
             * @example https://credentials.example.com/pid
             */
            credentialType: string;
            /** @description The credential's `iss`. */
            issuer: string;
            /** @description The platform issuer that signed it, null for external issuers. */
            issuerId: string | null;
            /** @description Only the claims the policy asked for (claim-minimised). */
            claims: {
                [key: string]: unknown;
            };
            /**
             * @description Checks performed: issuerSignature, disclosures, validityPeriod, holderBinding, status, …
             * @example {
             *       "issuerSignature": "passed",
             *       "holderBinding": "passed",
             *       "status": "passed"
             *     }
             */
            checks: {
                [key: string]: "passed" | "skipped";
            };
        };
        /** @description For a Digital Credentials API session: pass it as is, `navigator.credentials.get({ digital: { requests: [dcApiRequest] } })`. */
        DcApiRequest: {
            /**
             * @example openid4vp-v1-signed
             * @enum {string}
             */
            protocol: "openid4vp-v1-unsigned" | "openid4vp-v1-signed" | "openid4vp-v1-multisigned";
            /** @description The request: `{ request: <signed request object> }` for `openid4vp-v1-signed`, `{ request: { payload, signatures } }` (a JWS in the General JSON Serialization, one signature per client identifier) for `openid4vp-v1-multisigned`, the request parameters themselves for `openid4vp-v1-unsigned`. */
            data: {
                [key: string]: unknown;
            };
        };
        ApiCollectionOfVerificationSession: {
            /** @description This page's sessions, newest first, each as VerificationSessions_Get shows it (a withheld result stays withheld). */
            data: components["schemas"]["VerificationSessionResponse"][];
            /** @description Cursor of the next (older) page; null on the last page. */
            nextCursor: string | null;
        };
        ManagementResourceOfVerifierCertificateResponse: {
            data: components["schemas"]["VerifierCertificateResponse"];
        };
        /** @description The verifier certificate of this environment. */
        VerifierCertificateResponse: {
            /**
             * @description The stored chain, PEM, leaf first.
             * @example -----BEGIN CERTIFICATE-----
             *     MIIB…
             *     -----END CERTIFICATE-----
             */
            certificateChainPem: string;
            /**
             * @description Leaf subject.
             * @example CN=verifier.example.com
             */
            subject: string;
            /**
             * @description Leaf issuer.
             * @example CN=verifier.example.com verifier CA
             */
            issuer: string;
            /**
             * @description Leaf serial number (hex).
             * @example 4F3A…
             */
            serialNumber: string;
            /**
             * @description The dNSName used for `x509_san_dns`: the public host when the leaf names it.
             * @example verifier.example.com
             */
            dnsName: string;
            /**
             * @description Every dNSName SAN of the leaf.
             * @example [
             *       "verifier.example.com"
             *     ]
             */
            dnsNames: string[];
            /**
             * @description Leaf validity start (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            notBefore: string;
            /**
             * @description Leaf validity end (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            notAfter: string;
            /** @description The client identifiers wallets see, per prefix. */
            clientIds: {
                /**
                 * @description `x509_hash:` + base64url(SHA-256(DER leaf)).
                 * @example x509_hash:Uvo3HtuIxuhC92rShpgqcT3YXwrqRxWEviRiA0OZszk
                 */
                x509Hash: string;
                /**
                 * @description `x509_san_dns:` + `dnsName`.
                 * @example x509_san_dns:verifier.example.com
                 */
                x509SanDns: string;
            };
            /**
             * @description Whether the public host (the response_uri host) is a DNS name, not an IP address, and the leaf names it in a dNSName SAN, which policies with `clientIdPrefix: x509_san_dns` need.
             * @example true
             */
            x509SanDnsUsable: boolean;
            /**
             * @description The leaf subject's organizationIdentifier (2.5.4.97) values: set for an access certificate (ETSI TS 119 411-8); a registration certificate must name one of them.
             * @example [
             *       "VATFI-12345678"
             *     ]
             */
            organisationIdentifiers: string[];
            /** @description The access-certificate signing request awaiting its certificate (VerifierCertificates_ImportAccessCertificate), null when none is pending. */
            signingRequest: components["schemas"]["VerifierCertificateSigningRequest"] | null;
            keyLocation: components["schemas"]["VerifierKeyLocation"];
            /**
             * @description true for an uploaded chain, false for the one the platform generated.
             * @example false
             */
            uploaded: boolean;
            /**
             * @description When this certificate was generated or uploaded.
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
            /**
             * @description Non-fatal findings, e.g. a self-signed leaf (not HAIP compliant).
             * @example []
             */
            warnings: string[];
        };
        VerifierCertificateSigningRequest: {
            /**
             * @description The PKCS#10 request (PEM) to send to the access CA; its key stays here, sealed.
             * @example -----BEGIN CERTIFICATE REQUEST-----
             *     MIIB…
             *     -----END CERTIFICATE REQUEST-----
             */
            csrPem: string;
            /**
             * @description The requested subject (RFC 4514; 2.5.4.97 is organizationIdentifier).
             * @example C=FI, O=Webshop Oy, 2.5.4.97=VATFI-12345678, CN=Webshop Oy
             */
            subject: string;
            /**
             * @description When the request was made.
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
            keyLocation: components["schemas"]["VerifierKeyLocation"];
        };
        /** @description Where the private key of a verifier certificate is held. */
        VerifierKeyLocation: {
            /**
             * @description `software`: sealed under the service's master key. `pkcs11`: generated inside the platform's hardware security module (PKCS#11 token), sensitive and not extractable.
             * @example pkcs11
             * @enum {string}
             */
            provider: "software" | "pkcs11";
            /**
             * @description The provider's reference to the key: an RFC 7512 PKCS#11 URI (token label and CKA_ID) for `pkcs11`; null for `software`. Never key material.
             * @example pkcs11:token=verifiers;id=%8a%01%3c%de%12%7e%55%90%01%aa%bb%cc%dd%ee%ff%00
             */
            keyReference: string | null;
        };
        ManagementResourceOfVerifierCertificateSigningRequest: {
            data: components["schemas"]["VerifierCertificateSigningRequest"];
        };
        ManagementResourceOfVerifierRegistrationCertificate: {
            data: components["schemas"]["VerifierRegistrationCertificate"];
        };
        /** @description The registration certificate carried in every request object's verifier_info. */
        VerifierRegistrationCertificate: {
            /**
             * @description The registration certificate's id: what a verification policy names in `registrationCertificateIds`.
             * @example vreg_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            id: string;
            /**
             * @description Whether it is the environment's default one (VerifierRegistrationCertificates_Upload; used by policies that name none), or one added by id (VerifierRegistrationCertificates_Add).
             * @example true
             */
            default: boolean;
            /**
             * @description The relying party this tenant holds it for as an intermediary (RelyingParties_AddRegistrationCertificate); null when the tenant is itself the relying party.
             * @example null
             */
            relyingPartyId: string | null;
            /**
             * @description The JWT as uploaded.
             * @example eyJ…
             */
            registrationCertificate: string;
            /**
             * @description The relying party's name (`name`).
             * @example Webshop
             */
            name: string | null;
            /**
             * @description The relying party's identifiers (`sub`).
             * @example [
             *       "VATFI-12345678"
             *     ]
             */
            subjectIds: string[];
            /** @description The intermediary the relying party registered as acting for it (`act`); the access certificate is then the intermediary's. null: the relying party acts itself. */
            intermediary: {
                /**
                 * @description `act.sub` identifiers.
                 * @example [
                 *       "VATFI-87654321"
                 *     ]
                 */
                ids: string[];
                /**
                 * @description `act.sub.name`.
                 * @example Intermediary Oy
                 */
                name: string | null;
            } | null;
            /** @description What the relying party is registered to request: formats, types and claim paths. */
            credentials: {
                /** @example dc+sd-jwt */
                format: string;
                /**
                 * @example [
                 *       "urn:eudi:pid:1"
                 *     ]
                 */
                types: string[];
                /**
                 * @example [
                 *       [
                 *         "given_name"
                 *       ],
                 *       [
                 *         "address"
                 *       ]
                 *     ]
                 */
                claims: string[][];
            }[];
            /**
             * @description Subject of the registrar's signing certificate.
             * @example CN=…
             */
            registrar: string;
            /**
             * @description `iat` (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            issuedAt: string | null;
            /**
             * @description `exp` (ISO 8601), null when absent.
             * @example null
             */
            expiresAt: string | null;
            /**
             * @description When it was uploaded.
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
        };
        ManagementCollectionOfVerifierRegistrationCertificate: {
            /** @description This page's items, oldest first. */
            data: components["schemas"]["VerifierRegistrationCertificate"][];
            /** @description Cursor of the next page; null on the last page. */
            nextCursor: string | null;
        };
        ManagementResourceOfRelyingParty: {
            data: components["schemas"]["RelyingParty"];
        };
        /** @description A relying party this tenant acts for as an intermediary: its own identity and (RelyingParties_AddRegistrationCertificate) registration certificates. Policies name it in `relyingPartyId`. */
        RelyingParty: {
            /**
             * @description The relying party's id.
             * @example rp_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            id: string;
            /** @example Webshop */
            name: string;
            /** @example Webshop Holding Company Ltd */
            legalName: string | null;
            /**
             * @example [
             *       "LEIXG-743700EB2QF2J1WRO915"
             *     ]
             */
            identifiers: string[];
            /** @example FI */
            country: string | null;
            /** @example https://webshop.example.com */
            infoUri: string | null;
            /** @example https://webshop.example.com/privacy */
            privacyPolicyUri: string | null;
            /** @example https://registry.example.eu */
            registryUri: string | null;
            /** @example 2026-08-30T12:00:00.000Z */
            createdAt: string;
            /** @example 2026-08-30T12:00:00.000Z */
            updatedAt: string;
        };
        ManagementCollectionOfRelyingParty: {
            /** @description This page's items, oldest first. */
            data: components["schemas"]["RelyingParty"][];
            /** @description Cursor of the next page; null on the last page. */
            nextCursor: string | null;
        };
        ManagementResourceOfTrustSource: {
            data: components["schemas"]["TrustSource"];
        };
        /** @description A trusted list (ETSI TS 119 612 / TS 119 602) that issuers or wallet providers are trusted through. */
        TrustSource: {
            /**
             * @description The trust source's id.
             * @example ts_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            id: string;
            /**
             * @description `lotl`: an ETSI TS 119 612 list of trusted lists (XML), whose pointed-to lists are followed and verified with the signer certificates the LoTL gives for them; `tsl`: one TS 119 612 trusted list (XML); `lote`: a TS 119 602 list of trusted entities (compact JWS with the signer in `x5c`).
             * @example lotl
             * @enum {string}
             */
            kind: "lotl" | "tsl" | "lote";
            /**
             * @description Where the list is fetched from.
             * @example https://ec.europa.eu/tools/lotl/eu-lotl.xml
             */
            url: string;
            /**
             * @description Free text.
             * @example EU LoTL
             */
            description: string | null;
            /** @description PEM certificates that anchor the list. */
            signerCertificates: string[];
            /**
             * @description Refresh interval (seconds).
             * @example 21600
             */
            refreshIntervalSeconds: number;
            /**
             * @description `current`: the last refresh verified the list; `stale`: the last refresh failed and the last good copy, still before its NextUpdate, is used (stale-while-valid); `expired`: the last good copy has passed its NextUpdate and trusts nothing until a refresh succeeds; `pending`: no copy has verified yet.
             * @example current
             * @enum {string}
             */
            status: "pending" | "current" | "stale" | "expired";
            /** @description The lists of the last good copy (a LoTL first, then the lists it points to). */
            lists: components["schemas"]["TrustSourceList"][];
            /**
             * @description When the last good copy was fetched.
             * @example 2026-08-30T12:00:00.000Z
             */
            listsFetchedAt: string | null;
            /**
             * @description The earliest NextUpdate of the last good copy.
             * @example 2026-08-30T12:00:00.000Z
             */
            nextUpdate: string | null;
            /**
             * @description When a refresh last ran.
             * @example 2026-08-30T12:00:00.000Z
             */
            lastRefreshAt: string | null;
            /** @description Why the last refresh failed; null when it succeeded. */
            lastError: components["schemas"]["TrustSourceRefreshError"] | null;
            /**
             * @description When the next scheduled refresh is due.
             * @example 2026-08-30T12:00:00.000Z
             */
            nextRefreshAt: string;
            /**
             * @description Creation time (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
            /**
             * @description Last change (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            updatedAt: string;
        };
        /** @description One list of the last good copy. */
        TrustSourceList: {
            /**
             * @description Where the list was fetched from.
             * @example https://tl.example/de.xml
             */
            location: string;
            /**
             * @description SchemeTerritory of the list.
             * @example DE
             */
            territory: string | null;
            /**
             * @description TSLSequenceNumber / LoTE sequence number.
             * @example 42
             */
            sequenceNumber: number | null;
            /**
             * @description ListIssueDateTime (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            issuedAt: string | null;
            /**
             * @description NextUpdate (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            nextUpdate: string | null;
            /**
             * @description How many services (with their history) the list holds.
             * @example 12
             */
            services: number;
            /** @description For a list a LoTL points to: why its last fetch was refused (its last good copy, if any and still current, is kept). */
            error: components["schemas"]["TrustSourceRefreshError"] | null;
        };
        TrustSourceRefreshError: {
            /**
             * @description Why the last refresh failed: BadSignature, UnknownSigner, ListExpired, WrongReference, UnsupportedAlgorithm, MalformedList, SequenceNumberDecreased or FetchFailed.
             * @example BadSignature
             */
            code: string;
            /**
             * @description What failed, in words.
             * @example the signature does not verify
             */
            message: string;
        };
        ManagementCollectionOfTrustSource: {
            /** @description This page's items, oldest first. */
            data: components["schemas"]["TrustSource"][];
            /** @description Cursor of the next page; null on the last page. */
            nextCursor: string | null;
        };
        ManagementCollectionOfTrustSourceService: {
            /** @description This page's items, oldest first. */
            data: components["schemas"]["TrustSourceService"][];
            /** @description Cursor of the next page; null on the last page. */
            nextCursor: string | null;
        };
        /** @description One service of a trust source's last good copy. */
        TrustSourceService: {
            /**
             * @description Location of the list that names the service (a LoTL's pointed-to list, or the list itself).
             * @example https://tl.example/de.xml
             */
            list: string;
            /**
             * @description SchemeTerritory of that list.
             * @example DE
             */
            territory: string | null;
            /**
             * @description The trust service provider's name.
             * @example Test TSP
             */
            provider: string;
            /**
             * @description ServiceTypeIdentifier: what policies and issuers name with `serviceType`.
             * @example http://uri.etsi.org/TrstSvc/Svctype/CA/QC
             */
            serviceType: string;
            /**
             * @description The service's name.
             * @example PID CA
             */
            serviceName: string | null;
            /**
             * @description The service status URI (e.g. `http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/granted`); null when the list profile has none (TS 119 602).
             * @example http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/granted
             */
            status: string | null;
            /**
             * @description When the current status began (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            statusStartingTime: string;
            /** @description The service digital identities (X.509 certificates). */
            certificates: {
                /**
                 * @description Subject DN, comma-separated.
                 * @example CN=PID CA
                 */
                subject: string;
                /**
                 * @description End of validity (ISO 8601).
                 * @example 2026-08-30T12:00:00.000Z
                 */
                notAfter: string;
            }[];
            /** @description Earlier states, as the list gives them. */
            history: {
                /**
                 * @description The service status URI (e.g. `http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/granted`); null when the list profile has none (TS 119 602).
                 * @example http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/granted
                 */
                status: string | null;
                /** @description When that status began (ISO 8601). */
                statusStartingTime: string;
            }[];
            /**
             * @description Whether the service's certificates count as trust anchors now: its list's NextUpdate has not passed and its status is granted (or the profile has none) and has begun.
             * @example true
             */
            trusted: boolean;
        };
        ManagementCollectionOfTrustSourceRefresh: {
            /** @description This page's refresh attempts, newest first. */
            data: components["schemas"]["TrustSourceRefresh"][];
            /** @description Cursor of the next (older) page; null on the last page. */
            nextCursor: string | null;
        };
        /** @description One recorded refresh attempt of a trust source. */
        TrustSourceRefresh: {
            /**
             * @description The attempt's id.
             * @example tsr_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            id: string;
            /**
             * @description When the attempt ran (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            attemptedAt: string;
            /**
             * @description `create`: the first fetch at TrustSources_Create; `manual`: TrustSources_Refresh; `schedule`: the worker's scheduled refresh.
             * @example schedule
             * @enum {string}
             */
            trigger: "create" | "manual" | "schedule";
            /**
             * @description `ok`: the list verified and replaced the copy in use; `failed`: the list could not be fetched (FetchFailed); `refused`: it was fetched but did not verify or went back in sequence.
             * @example ok
             * @enum {string}
             */
            outcome: "ok" | "failed" | "refused";
            /** @description Why it failed or was refused; null when ok. */
            reason: components["schemas"]["TrustSourceRefreshError"] | null;
            /**
             * @description TSLSequenceNumber / LoTE sequence number of the source's own list in the copy in use after the attempt (the new copy when ok, the kept one otherwise); null when there is none.
             * @example 42
             */
            sequenceNumber: number | null;
            /**
             * @description ListIssueDateTime of that list (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            issuedAt: string | null;
            /**
             * @description The earliest NextUpdate of the copy in use after the attempt (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            nextUpdate: string | null;
            /**
             * @description How many services the copy in use after the attempt holds, across its lists.
             * @example 12
             */
            services: number;
            /**
             * @description Whether the attempt failed or was refused while an earlier good copy existed, which stayed in use (stale while its NextUpdate has not passed).
             * @example false
             */
            lastGoodCopyKept: boolean;
            /** @description For a LoTL: the lists it points to that failed in this attempt (each keeps its own last good copy while that is current); empty otherwise. */
            failedLists: {
                /**
                 * @description The pointed-to list.
                 * @example https://tl.example/de.xml
                 */
                location: string;
                /**
                 * @description Why it was refused.
                 * @example BadSignature
                 */
                code: string;
                /** @description What failed, in words. */
                message: string;
            }[];
        };
        ManagementResourceOfWebhookSubscriptionWithSecret: {
            data: components["schemas"]["WebhookSubscriptionWithSecret"];
        };
        /** @description A new subscription with its signing secret. */
        WebhookSubscriptionWithSecret: {
            /**
             * @description The webhook subscription's id.
             * @example wh_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            id: string;
            /**
             * @description Endpoint that receives the events (https).
             * @example https://example.com/webhooks/credentials
             */
            url: string;
            /**
             * @description Event types delivered to the endpoint; `["*"]` for all.
             * @example [
             *       "verification.session.verified"
             *     ]
             */
            events: ("issuance.transaction.created" | "issuance.transaction.completed" | "issuance.transaction.reissued" | "issuance.transaction.deferred" | "issuance.transaction.cancelled" | "issuance.transaction.expired" | "credential.revoked" | "credential.suspended" | "credential.reinstated" | "credential.accepted" | "credential.failed" | "credential.deleted" | "verification.session.created" | "verification.session.verified" | "verification.session.rejected" | "verification.session.cancelled" | "verification.session.expired" | "issuer.activated" | "credential_configuration.created" | "credential_configuration.version_activated" | "verification_policy.suspended" | "verification_policy.reactivated" | "verification_policy.version_activated" | "trust_source.refresh_failed" | "trust_source.expired" | "verifier_certificate.expiring" | "registration_certificate.expiring" | "*")[];
            /**
             * @description Free text for the integrator.
             * @example Checkout backend
             */
            description: string | null;
            /**
             * @description `active` subscriptions receive events; `disabled` ones (e.g. after repeated failures) do not.
             * @example active
             * @enum {string}
             */
            status: "active" | "disabled";
            /**
             * @description Why the subscription was disabled (e.g. the endpoint answered 410 Gone); null while active.
             * @example null
             */
            disabledReason: string | null;
            /**
             * @description Creation time (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
            /**
             * @description Last change (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            updatedAt: string;
            /**
             * @description Signing secret (Standard Webhooks `whsec_` form) to verify `webhook-signature`. Shown only in this response; store it now.
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret: string;
        };
        ManagementCollectionOfWebhookSubscription: {
            /** @description This page's items, oldest first. */
            data: components["schemas"]["WebhookSubscription"][];
            /** @description Cursor of the next page; null on the last page. */
            nextCursor: string | null;
        };
        /** @description Where and which events are delivered (Standard Webhooks). */
        WebhookSubscription: {
            /**
             * @description The webhook subscription's id.
             * @example wh_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            id: string;
            /**
             * @description Endpoint that receives the events (https).
             * @example https://example.com/webhooks/credentials
             */
            url: string;
            /**
             * @description Event types delivered to the endpoint; `["*"]` for all.
             * @example [
             *       "verification.session.verified"
             *     ]
             */
            events: ("issuance.transaction.created" | "issuance.transaction.completed" | "issuance.transaction.reissued" | "issuance.transaction.deferred" | "issuance.transaction.cancelled" | "issuance.transaction.expired" | "credential.revoked" | "credential.suspended" | "credential.reinstated" | "credential.accepted" | "credential.failed" | "credential.deleted" | "verification.session.created" | "verification.session.verified" | "verification.session.rejected" | "verification.session.cancelled" | "verification.session.expired" | "issuer.activated" | "credential_configuration.created" | "credential_configuration.version_activated" | "verification_policy.suspended" | "verification_policy.reactivated" | "verification_policy.version_activated" | "trust_source.refresh_failed" | "trust_source.expired" | "verifier_certificate.expiring" | "registration_certificate.expiring" | "*")[];
            /**
             * @description Free text for the integrator.
             * @example Checkout backend
             */
            description: string | null;
            /**
             * @description `active` subscriptions receive events; `disabled` ones (e.g. after repeated failures) do not.
             * @example active
             * @enum {string}
             */
            status: "active" | "disabled";
            /**
             * @description Why the subscription was disabled (e.g. the endpoint answered 410 Gone); null while active.
             * @example null
             */
            disabledReason: string | null;
            /**
             * @description Creation time (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
            /**
             * @description Last change (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            updatedAt: string;
        };
        ManagementResourceOfWebhookSubscription: {
            data: components["schemas"]["WebhookSubscription"];
        };
        ManagementCollectionOfWebhookDelivery: {
            /** @description This page's items, oldest first. */
            data: components["schemas"]["WebhookDelivery"][];
            /** @description Cursor of the next page; null on the last page. */
            nextCursor: string | null;
        };
        /** @description One event's delivery to one subscription, across its attempts. */
        WebhookDelivery: {
            /**
             * @description Delivery id.
             * @example whd_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            id: string;
            /**
             * @description The webhook subscription's id.
             * @example wh_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            subscriptionId: string;
            /**
             * @description Id of the event (the `webhook-id` header).
             * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            eventId: string;
            /**
             * @description An event type of the catalogue.
             * @example verification.session.verified
             * @enum {string}
             */
            eventType: "issuance.transaction.created" | "issuance.transaction.completed" | "issuance.transaction.reissued" | "issuance.transaction.deferred" | "issuance.transaction.cancelled" | "issuance.transaction.expired" | "credential.revoked" | "credential.suspended" | "credential.reinstated" | "credential.accepted" | "credential.failed" | "credential.deleted" | "verification.session.created" | "verification.session.verified" | "verification.session.rejected" | "verification.session.cancelled" | "verification.session.expired" | "issuer.activated" | "credential_configuration.created" | "credential_configuration.version_activated" | "verification_policy.suspended" | "verification_policy.reactivated" | "verification_policy.version_activated" | "trust_source.refresh_failed" | "trust_source.expired" | "verifier_certificate.expiring" | "registration_certificate.expiring";
            /**
             * @description `pending` while attempts remain, `succeeded` after a 2xx answer, `failed` once retries are exhausted.
             * @example succeeded
             * @enum {string}
             */
            status: "pending" | "succeeded" | "failed";
            /**
             * @description Attempts made so far.
             * @example 1
             */
            attempts: number;
            /**
             * @description Time of the latest attempt (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            lastAttemptAt: string | null;
            /**
             * @description HTTP status of the latest attempt; null when none was received.
             * @example 200
             */
            lastResponseStatus: number | null;
            /**
             * @description Why the latest attempt failed (e.g. `Timed out after 15000 ms`, `Connection refused (ECONNREFUSED)`, `The endpoint answered 503.`); null after a success or before any attempt.
             * @example null
             */
            lastError: string | null;
            /** @description Every attempt so far, oldest first. */
            attemptLog: components["schemas"]["WebhookAttempt"][];
            /**
             * @description When the next attempt is due (ISO 8601); null when none is planned.
             * @example null
             */
            nextAttemptAt: string | null;
            /**
             * @description Creation time (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
        };
        /** @description One attempt of a delivery. */
        WebhookAttempt: {
            /**
             * @description 1 for the first attempt.
             * @example 1
             */
            attempt: number;
            /**
             * @description When it started (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            startedAt: string;
            /**
             * @description How long it took.
             * @example 42
             */
            durationMs: number;
            /**
             * @description The status answered; null when none was.
             * @example 200
             */
            responseStatus: number | null;
            /**
             * @description Why it failed, without secrets or response bodies.
             * @example null
             */
            error: string | null;
        };
        ManagementResourceOfWebhookDelivery: {
            data: components["schemas"]["WebhookDelivery"];
        };
        ApiEnvelopeOfIssuanceTransactionResponse: {
            data: components["schemas"]["IssuanceTransaction"];
        };
        /** @description One credential offer and its outcome. */
        IssuanceTransaction: {
            /**
             * @description Transaction id.
             * @example itx_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            id: string;
            /**
             * @description Lifecycle state.
             * @example pending
             * @enum {string}
             */
            status: "pending" | "completed" | "cancelled" | "expired";
            /** @description Issuer that signs the credential. */
            issuerId: string;
            /** @description Credential configuration identifier. */
            credentialConfiguration: string;
            /**
             * @description The offer link a wallet opens (what a QR code encodes); null once the offer was redeemed, cancelled or expired, and for callers without the credentials.issue scope (whoever holds the link can claim the credential).
             * @example openid-credential-offer://?credential_offer_uri=https%3A%2F%2F…
             */
            credentialOffer: string | null;
            /** @description URI the wallet fetches the offer from (offerBy=reference); null otherwise, when no longer pending, or for callers without the credentials.issue scope. */
            credentialOfferUri: string | null;
            /**
             * @description The transaction code, returned once at creation so the caller can send it out of band.
             * @example 493817
             */
            txCode: string | null;
            /** @description When the offer stops being redeemable (ISO 8601). Redeeming the code moves it to at least the access token's expiry. */
            expiresAt: string;
            /** @description The issued credential, once completed: with a batch or further requests with the same access token (OpenID4VCI §14.3), the first one; the events issuance.transaction.completed and .reissued name every one. */
            credentialId: string | null;
            /** @description The caller's reference, as sent. */
            callbackReference: string | null;
            /** @description The caller's id for the person, as sent. */
            externalSubjectReference: string | null;
            /** @description Creation time (ISO 8601). */
            createdAt: string;
            /** @description When the wallet received the credential. */
            completedAt: string | null;
            /** @description When the transaction was cancelled. */
            cancelledAt: string | null;
            /** @description Deferred issuance (`delivery.deferred`); null for a transaction created with its claims. */
            deferral: components["schemas"]["IssuanceDeferral"] | null;
        };
        IssuanceDeferral: {
            /** @description When IssuanceTransactions_SupplyClaims supplied the claims; null while they are awaited. */
            claimsSuppliedAt: string | null;
            /** @description When the wallet asked for the credential and was told to come back (HTTP 202, `issuance.transaction.deferred`); null before. */
            walletWaitingSince: string | null;
        };
        ApiCollectionOfIssuanceTransaction: {
            /** @description This page's transactions, newest first. `credentialOffer`, `credentialOfferUri` and `txCode` are always null in a list: the offer is a bearer credential, handed out only by IssuanceTransactions_Create and _Get. */
            data: components["schemas"]["IssuanceTransaction"][];
            /** @description Cursor of the next (older) page; null on the last page. */
            nextCursor: string | null;
        };
        ApiEnvelopeOfCompletedAuthorization: {
            data: components["schemas"]["CompletedAuthorization"];
        };
        CompletedAuthorization: {
            /**
             * @description Where to send the person's browser now (302 or 303): the issuer's return URL with a one-time result, which sends the browser that opened the authorization endpoint on to the wallet with `code`, `state` and `iss`, or with `error=access_denied`.
             * @example https://credentials.example/issuers/iss_01j9z3k8m2x4v6b8n0p2q4s6t8/authorize/return?result=…
             */
            redirectTo: string;
            /**
             * @description Whether the wallet is to get a code: false when denied, or when the offer is no longer pending (cancelled, expired or redeemed meanwhile).
             * @example true
             */
            approved: boolean;
        };
        ApiEnvelopeOfCredentialStatusResponse: {
            data: components["schemas"]["CredentialStatus"];
        };
        CredentialStatus: {
            /**
             * @description Credential id.
             * @example cred_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            credentialId: string;
            /**
             * @description Credential state.
             * @example revoked
             * @enum {string}
             */
            status: "issued" | "revoked";
            /** @description The issuer that signed the credential. */
            issuerId: string;
            /** @description Credential configuration identifier. */
            credentialConfiguration: string;
            /** @description Issuance time (the credential's `iat`). */
            issuedAt: string;
            /** @description Expiry (the credential's `exp`). */
            expiresAt: string;
            /** @description When it was revoked; null while valid. */
            revokedAt: string | null;
            /** @description Where relying parties read the status; null when status is not enabled. */
            statusList: {
                /** @description Status list token URL (IETF Token Status List). */
                uri: string;
                /** @description The credential's index in the list. */
                idx: number;
            } | null;
        };
        ApiCollectionOfCredential: {
            /** @description This page's credentials, newest first. */
            data: components["schemas"]["Credential"][];
            /** @description Cursor of the next (older) page; null on the last page. */
            nextCursor: string | null;
        };
        /** @description An issued credential: its metadata and state, never its claims. */
        Credential: {
            /**
             * @description Credential id.
             * @example cred_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            id: string;
            /**
             * @description Credential configuration identifier.
             * @example employee-badge
             */
            credentialConfiguration: string;
            /**
             * @description The configuration version (claims schema) it was issued under.
             * @example 1
             */
            configurationVersion: number;
            /** @description The issuer that signed the credential. */
            issuerId: string;
            /** @description The issuance transaction that issued it. */
            transactionId: string;
            /**
             * @description `active` (valid), `suspended` (status list value 2, reversible), `revoked` (value 1, final), or `expired` (past `expiresAt`, derived at read time; a revoked credential stays `revoked`).
             * @example active
             * @enum {string}
             */
            status: "active" | "suspended" | "revoked" | "expired";
            /** @description Issuance time (the credential's `iat`, the start of its UTC day). */
            issuedAt: string;
            /** @description Expiry (the credential's `exp`). */
            expiresAt: string;
            /** @description When it was revoked; null unless revoked. */
            revokedAt: string | null;
            /** @description When its current suspension began; null when not suspended (a revocation of a suspended credential keeps it). */
            suspendedAt: string | null;
            /** @description Where relying parties read the status; null when status is not enabled. */
            statusList: {
                /** @description Status list token URL (IETF Token Status List). */
                uri: string;
                /** @description The credential's index in the list. */
                idx: number;
            } | null;
            /**
             * @description RFC 7638 SHA-256 thumbprint (base64url) of the holder key the credential is bound to (`cnf.jwk`); null without holder binding, or for credentials issued before it was recorded.
             * @example NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs
             */
            holderKeyThumbprint: string | null;
        };
        ApiEnvelopeOfCredential: {
            data: components["schemas"]["Credential"];
        };
        ManagementCollectionOfAuditEvent: {
            /** @description This page's events, newest first. */
            data: components["schemas"]["AuditEvent"][];
            /** @description Cursor of the next (older) page; null on the last page. */
            nextCursor: string | null;
        };
        AuditEvent: {
            /**
             * @description Audit event id.
             * @example aud_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            id: string;
            /** @description Position in the tenant's hash chain (both environments share it); null until the event is sealed into the chain, within a second or so of the call. */
            sequence: number | null;
            /** @description When the call was answered. */
            occurredAt: string;
            /** @description Who made the call. */
            actor: {
                /**
                 * @description API key, console staff user, or the operator CLI.
                 * @enum {string}
                 */
                type: "apiKey" | "staff" | "cli";
                /** @description The API key's or staff user's id; null for the CLI. */
                id: string | null;
                /** @description The API key's name, the staff user's email, or the operating-system user of the CLI. */
                name: string | null;
            };
            /**
             * @description The operation id (`Issuers_Create`), or `cli:<command>` for the operator CLI.
             * @example Issuers_Create
             */
            operation: string;
            /** @description The resource the call acted on. */
            target: {
                /** @description The kind of resource the call named or created. */
                type: string | null;
                /** @description Its id or reference; null when the call named none. */
                id: string | null;
            };
            /**
             * @description `succeeded` (2xx), `refused` (authorization: 401, 403, or a console CSRF failure) or `failed` (any other error).
             * @enum {string}
             */
            outcome: "succeeded" | "refused" | "failed";
            /**
             * @description The HTTP status the caller got.
             * @example 201
             */
            status: number;
            /** @description The response's request id (`x-ms-request-id`). */
            requestId: string;
            /** @description The caller's `x-ms-client-request-id`, when it sent one. */
            clientRequestId: string | null;
            /** @description The caller's address as the server saw it. */
            sourceAddress: string | null;
            /** @description What the call changed, without secrets or claim values. */
            summary: {
                /** @description The input fields the call carried (names only). */
                fields: string[];
                /** @description Non-secret settings among them (names, statuses, URLs, scopes, identifiers). Never secrets, keys, certificates' private parts or claim values. */
                values: {
                    [key: string]: unknown;
                };
            };
            /** @description Tamper evidence: the event's place in the tenant's hash chain. */
            integrity: {
                /**
                 * @description `intact`: the event's hash matches its content and links to the event before it; `broken`: the event or the one before it was altered or removed; `pending`: not yet sealed.
                 * @enum {string}
                 */
                state: "intact" | "broken" | "pending";
                /** @description SHA-256 (hex) over the event and the previous hash. */
                hash: string | null;
                /** @description The hash of the event before it in the chain. */
                previousHash: string | null;
            };
        };
        ApiEnvelopeOfActivity: {
            data: components["schemas"]["Activity"];
        };
        Activity: {
            /**
             * @description First UTC day counted.
             * @example 2026-08-01
             */
            from: string;
            /**
             * @description Last UTC day counted.
             * @example 2026-08-30
             */
            to: string;
            /** @enum {string} */
            interval: "day";
            /** @description The grouping asked for, if any. */
            groupBy: ("issuer" | "policy") | null;
            /** @description The environment's counts over the whole range. */
            total: components["schemas"]["ActivityCounts"];
            /** @description The environment's counts per interval, every interval of the range, oldest first. */
            buckets: components["schemas"]["ActivityBucket"][];
            /** @description Per issuer or policy with any activity in the range, most active first; empty without `groupBy`. */
            groups: components["schemas"]["ActivityGroup"][];
        };
        ActivityCounts: {
            /** @description Credentials issued (by `issuedAt`); null in a policy's counts. */
            issued: number | null;
            /** @description Verification sessions decided `verified` (by `decidedAt`); null in an issuer's counts. */
            verified: number | null;
            /** @description Verification sessions decided `rejected` (by `decidedAt`); null in an issuer's counts. */
            rejected: number | null;
            /** @description Credentials revoked (by `revokedAt`); null in a policy's counts. */
            revoked: number | null;
        };
        ActivityBucket: {
            /** @description Credentials issued (by `issuedAt`); null in a policy's counts. */
            issued: number | null;
            /** @description Verification sessions decided `verified` (by `decidedAt`); null in an issuer's counts. */
            verified: number | null;
            /** @description Verification sessions decided `rejected` (by `decidedAt`); null in an issuer's counts. */
            rejected: number | null;
            /** @description Credentials revoked (by `revokedAt`); null in a policy's counts. */
            revoked: number | null;
            /**
             * @description The bucket's UTC day (YYYY-MM-DD).
             * @example 2026-08-30
             */
            start: string;
        };
        ActivityGroup: {
            /**
             * @description The issuer's id (`groupBy=issuer`) or the policy's identifier (`groupBy=policy`).
             * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            key: string;
            /** @description The issuer's or policy's display name; null if it no longer exists. */
            name: string | null;
            /** @description The group's counts over the whole range. */
            total: components["schemas"]["ActivityCounts"];
            /** @description One per interval of the range, oldest first. */
            buckets: components["schemas"]["ActivityBucket"][];
        };
        /** @description A tenant's console administrator, with the one-time password. */
        TenantAdmin: {
            /** @example admin@acme.example */
            email: string;
            /** @constant */
            role: "admin";
            /** @description The administrator's console password, shown once: hand it over out of band; the holder changes it by `pnpm cli staff reset-password` or keeps it. */
            temporaryPassword: string;
        };
        CollectionOfTenant: {
            /** @description This page's items, oldest first. */
            data: components["schemas"]["Tenant"][];
            /** @description Cursor of the next page; null on the last page. */
            nextCursor: string | null;
        };
        /** @description A tenant of the platform: the partition all its resources live in. */
        Tenant: {
            /**
             * @description The tenant's id.
             * @example ten_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            id: string;
            /**
             * @description Name shown to operators.
             * @example Acme Bank
             */
            name: string;
            /**
             * @description suspended: its API keys and staff are refused (403 TenantSuspended).
             * @enum {string}
             */
            status: "active" | "suspended";
            /**
             * @description When it was suspended (ISO 8601); null while active.
             * @example null
             */
            suspendedAt: string | null;
            /**
             * @description Creation time (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
        };
        CollectionOfStaffMember: {
            /** @description This page's items, oldest first. */
            data: components["schemas"]["StaffMember"][];
            /** @description Cursor of the next page; null on the last page. */
            nextCursor: string | null;
        };
        /** @description A console user of the tenant, with their role in it. */
        StaffMember: {
            /**
             * @description The console user's id.
             * @example usr_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            id: string;
            /**
             * @description Sign-in e-mail (lower case).
             * @example ops@acme.example
             */
            email: string;
            /**
             * @description admin: everything, the audit trail and the team included; operator: everything but webhooks, the audit trail and the team; viewer: reads.
             * @example operator
             * @enum {string}
             */
            role: "admin" | "operator" | "viewer";
            /** @description This tenant is the user's home: its administrators reset their password. false: a member whose home is another tenant, which manages their password. */
            home: boolean;
            /** @description The user is a platform operator (docs/api/tenants.md): they hold platform.manage besides the role, and only a caller holding it too may change them. */
            platformOperator: boolean;
            /**
             * @description When they joined this tenant (ISO 8601).
             * @example 2026-08-30T12:00:00.000Z
             */
            createdAt: string;
        };
        /** @description Wallet attestation as OAuth client authentication (OpenID4VCI Appendix E, attest_jwt_client_auth) at this issuer's PAR and token endpoints. */
        IssuerWalletAttestationOutput: {
            /**
             * @description PEM X.509 CA certificates of the wallet providers trusted to attest wallets: a wallet attestation is accepted when its x5c chain ends at one of them (or at a CA of `trustSources`). At least one root or one trust source.
             * @default []
             */
            trustedRoots: string[];
            /** @description Trust sources whose wallet providers are trusted: an attestation whose x5c chain ends at a CA a source grants under the service type now is accepted, as for `trustedRoots`. */
            trustSources?: components["schemas"]["AttesterTrustSourceOutput"][];
            /**
             * @description When true, the pushed authorization request and token endpoints refuse a wallet without a valid attestation (401 invalid_client), as HAIP has issuers require client authentication. When false, an attestation is checked when sent and otherwise not asked for.
             * @default false
             * @example false
             */
            required: boolean;
            /**
             * @description When true, the issuer offers a challenge endpoint (`challenge_endpoint` in its authorization server metadata) and an attestation's PoP must carry one of its challenges (`challenge`, or the DPoP proof's `nonce` when the proof is the PoP): 400 `use_attestation_challenge` with a fresh `OAuth-Client-Attestation-Challenge` otherwise. Challenges are valid 5 minutes, at this issuer only.
             * @default false
             * @example false
             */
            requireChallenge: boolean;
        };
        AttesterTrustSourceOutput: {
            /**
             * @description A trust source of this tenant and environment (TrustSources_Create), typically a LoTE of wallet providers.
             * @example ts_01jd5x6c3v8w9y0z1a2b3c4d5e
             */
            trustSourceId: string;
            /**
             * @description The ETSI service type whose services' certificates are trusted (status granted, or none in a TS 119 602 list, at the time of the request); default the TS 119 602 wallet provider issuance service.
             * @default http://uri.etsi.org/19602/SvcType/WalletSolution/Issuance
             * @example http://uri.etsi.org/19602/SvcType/WalletSolution/Issuance
             */
            serviceType: string;
        };
        /** @description Key attestations (OpenID4VCI Appendix D) this issuer accepts for the keys it binds credentials to. */
        IssuerKeyAttestationOutput: {
            /**
             * @description PEM X.509 CA certificates of the key attesters (wallet providers, key storage vendors) trusted: a key attestation is accepted when its x5c chain ends at one of them (or at a CA of `trustSources`). At least one root or one trust source.
             * @default []
             */
            trustedRoots: string[];
            /** @description Trust sources whose services of the type are trusted key attesters: a key attestation whose x5c chain ends at a CA a source grants now is accepted, as for `trustedRoots`. */
            trustSources?: components["schemas"]["AttesterTrustSourceOutput"][];
            /**
             * @description When true, every key proof must carry a key attestation (jwt proofs with key_attestation, or attestation proofs), announced as key_attestations_required; otherwise one is checked when sent.
             * @default false
             * @example false
             */
            required: boolean;
            /**
             * @description Accepted key storage levels (any one): e.g. iso_18045_high, iso_18045_moderate. Omitted: any.
             * @example [
             *       "iso_18045_high",
             *       "iso_18045_moderate"
             *     ]
             */
            keyStorage?: string[];
            /**
             * @description Accepted user authentication levels (any one): e.g. iso_18045_high, iso_18045_moderate. Omitted: any.
             * @example [
             *       "iso_18045_high",
             *       "iso_18045_moderate"
             *     ]
             */
            userAuthentication?: string[];
        };
        /** @description One claim of the credential's schema. */
        ClaimDefinitionOutput: {
            /**
             * @description Claim path from the credential's top level, one name per level.
             * @example [
             *       "address",
             *       "country"
             *     ]
             */
            path: string[];
            /**
             * @description Value type; `date` is an ISO 8601 full date (YYYY-MM-DD) string.
             * @example string
             * @enum {string}
             */
            type: "string" | "number" | "integer" | "boolean" | "date" | "object" | "array";
            /**
             * @description Whether issuance must supply this claim.
             * @default false
             * @example true
             */
            required: boolean;
            /**
             * @description Whether the holder may disclose this claim selectively.
             * @default true
             * @example true
             */
            selectivelyDisclosable: boolean;
            /** @description Labels per locale for wallets. */
            display?: components["schemas"]["ClaimDisplay"][];
            constraints?: components["schemas"]["ClaimConstraints"];
        };
        /** @description One credential the holder is asked to present. */
        VerificationPolicyCredentialOutput: {
            /**
             * @description Id of this credential within the policy (a DCQL credential query id).
             * @example pid
             */
            id: string;
            /**
             * @description Accepted SD-JWT VC types (`vct`). Each must be the credentialType of a credential configuration in this environment, unless the credential trusts an external issuer (jwksUri, credentialIssuer, x5cRoot or trustSourceId).
             * @example [
             *       "https://credentials.example.com/pid"
             *     ]
             */
            credentialTypes: string[];
            /**
             * @description Issuers whose credentials are accepted.
             * @example [
             *       {
             *         "issuerId": "iss_01jd5x6c3v8w9y0z1a2b3c4d5e"
             *       }
             *     ]
             */
            trustedIssuers: ({
                /**
                 * @description An issuer of this tenant and environment.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
            } | {
                /**
                 * Format: uri
                 * @description https URL of the external issuer's JWKS (public keys that sign its credentials).
                 * @example https://issuer.example.com/.well-known/jwks.json
                 */
                jwksUri: string;
            } | {
                /**
                 * Format: uri
                 * @description The external issuer's identifier (the credentials' `iss`); its keys are read from its SD-JWT VC issuer metadata at `/.well-known/jwt-vc-issuer` (path inserted before the identifier's path).
                 * @example https://issuer.example.com/tenant-1
                 */
                credentialIssuer: string;
            } | {
                /** @description PEM X.509 CA root certificate; credentials whose x5c chain ends at it (RFC 5280 path validation) are trusted. */
                x5cRoot: string;
            } | {
                /**
                 * @description A trust source (TrustSources_Create) of this tenant and environment: an ETSI trusted list whose last good copy names the issuers' CAs.
                 * @example ts_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                trustSourceId: string;
                /**
                 * @description The ETSI service type (ServiceTypeIdentifier URI) whose services' certificates are trusted, with status granted (or, in a TS 119 602 list, no status) at verification time: e.g. `http://uri.etsi.org/TrstSvc/Svctype/CA/QC` or `http://uri.etsi.org/19602/SvcType/PID/Issuance`. Credentials whose x5c chain ends at one of them (RFC 5280 path validation) are trusted.
                 * @example http://uri.etsi.org/19602/SvcType/PID/Issuance
                 */
                serviceType: string;
            })[];
            /**
             * @description Claims the holder must disclose.
             * @default []
             * @example [
             *       [
             *         "given_name"
             *       ],
             *       [
             *         "age_equal_or_over",
             *         "18"
             *       ]
             *     ]
             */
            requiredClaims: (string | number | null)[][];
            /**
             * @description Claims requested when available.
             * @default []
             * @example [
             *       [
             *         "family_name"
             *       ]
             *     ]
             */
            optionalClaims: (string | number | null)[][];
            /**
             * @description Values some requested claims must have (DCQL `values`): each path is one of requiredClaims or optionalClaims. A presentation disclosing such a claim with none of its values is rejected (`claim_value_mismatch`).
             * @default []
             * @example [
             *       {
             *         "path": [
             *           "age_over_18"
             *         ],
             *         "values": [
             *           true
             *         ]
             *       }
             *     ]
             */
            claimValues: components["schemas"]["VerificationPolicyClaimValues"][];
            /**
             * @description Alternative combinations of optionalClaims, most preferred first (DCQL `claim_sets`): the holder discloses every requiredClaims entry and all claims of one combination, else the presentation is rejected (`missing_required_claims`). Null: optional claims are simply optional.
             * @default null
             * @example [
             *       [
             *         [
             *           "birthdate"
             *         ]
             *       ],
             *       [
             *         [
             *           "age_over_18"
             *         ]
             *       ]
             *     ]
             */
            claimSets: (string | number | null)[][][] | null;
            /**
             * @description Accept several credentials for this entry (DCQL `multiple`); otherwise an answer with more than one is rejected (`too_many_presentations`).
             * @default false
             * @example false
             */
            multiple: boolean;
            /**
             * @description Require proof of possession of the holder key (key binding JWT); false is sent as DCQL `require_cryptographic_holder_binding: false` and accepts credentials without a holder key (`cnf`) presented without a key binding JWT.
             * @default true
             * @example true
             */
            holderBindingRequired: boolean;
            /**
             * @description Check the credential's status list (revocation).
             * @default true
             * @example true
             */
            checkStatus: boolean;
            /**
             * @description Refuse credentials issued longer ago than this many days; null for no limit.
             * @default null
             * @example 365
             */
            maxCredentialAgeDays: number | null;
            /**
             * @description Also accept a credential whose vct extends one of credentialTypes, as the SD-JWT VC Type Metadata at each type's https URL says (every link fetched and, where an integrity value is given, matched). The link is asserted by whoever hosts the type's metadata, not signed by the issuer; trust still comes from trustedIssuers alone.
             * @default false
             * @example false
             */
            acceptExtendedTypes: boolean;
        };
        /** @description A DCQL credential set. */
        VerificationPolicyCredentialSetOutput: {
            /**
             * @description Alternative combinations of credential ids; any one option satisfies the set.
             * @example [
             *       [
             *         "pid"
             *       ],
             *       [
             *         "mdl"
             *       ]
             *     ]
             */
            options: string[][];
            /**
             * @description Whether the set must be satisfied.
             * @default true
             * @example true
             */
            required: boolean;
        };
        ErrorEnvelope: {
            /** @description What went wrong. */
            error: {
                /**
                 * @description Stable PascalCase error code.
                 * @example ValidationFailed
                 * @enum {string}
                 */
                code: "ValidationFailed" | "MalformedJson" | "MalformedUrl" | "MalformedRequest" | "UnknownClaim" | "PlatformLimit" | "MissingApiVersion" | "UnsupportedApiVersion" | "InvalidIdempotencyKey" | "ReadOnlyField" | "UnknownPolicy" | "IssuerRequired" | "RevocationNotSupported" | "WebhookUrlNotAllowed" | "InvalidCertificate" | "TrustSourceUrlNotAllowed" | "UnknownTrustSource" | "Unauthenticated" | "MissingScope" | "CsrfTokenInvalid" | "IssuerBindingMismatch" | "TenantSuspended" | "NotFound" | "RouteNotFound" | "MethodNotAllowed" | "RequestTimeout" | "AlreadyExists" | "InvalidState" | "IssuerNotReady" | "IssuerNotActive" | "IssuerNotAuthorised" | "PolicySuspended" | "VerifierCertificateMismatch" | "NotRegistered" | "IdempotencyKeyReused" | "IdempotencyKeyInUse" | "TrustListRefused" | "PayloadTooLarge" | "UriTooLong" | "UnsupportedMediaType" | "ExpectationFailed" | "Throttled" | "HeadersTooLarge" | "InternalError" | "NotImplemented" | "ServiceUnavailable" | "KeyCustodyUnavailable";
                /**
                 * @description Human-readable explanation.
                 * @example The request is not valid.
                 */
                message: string;
                /** @description Quote this in support requests (equals x-ms-request-id). */
                requestId: string;
                /** @description One entry per offending field, when the error concerns input. */
                details?: {
                    /**
                     * @description What is wrong with the field.
                     * @example InvalidValue
                     */
                    code: string;
                    /**
                     * @description Path of the offending field.
                     * @example claims.birthdate
                     */
                    target: string;
                    /** @description Human-readable explanation. */
                    message: string;
                }[];
            };
        };
        /** @description An issuance transaction was created (IssuanceTransactions_Create); its offer is pending. */
        IssuanceTransactionCreatedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "issuance.transaction.created";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The issuance transaction's id.
                 * @example itx_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                transactionId: string;
                /**
                 * @description The issuer's id.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
                /**
                 * @description Identifier of the credential configuration.
                 * @example employee-badge
                 */
                credentialConfiguration: string;
                /**
                 * @description The transaction's state after the change.
                 * @constant
                 */
                status: "pending";
                /**
                 * @description The caller's reference given at creation.
                 * @example order-4711
                 */
                callbackReference: string | null;
                /**
                 * @description The caller's subject reference given at creation.
                 * @example order-4711
                 */
                externalSubjectReference: string | null;
            };
        };
        /** @description The wallet redeemed the offer and received its credential(s). */
        IssuanceTransactionCompletedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "issuance.transaction.completed";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The issuance transaction's id.
                 * @example itx_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                transactionId: string;
                /**
                 * @description The issuer's id.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
                /**
                 * @description Identifier of the credential configuration.
                 * @example employee-badge
                 */
                credentialConfiguration: string;
                /**
                 * @description The transaction's state after the change.
                 * @constant
                 */
                status: "completed";
                /**
                 * @description Ids of the credentials issued.
                 * @example [
                 *       "cred_01jd5x6c3v8w9y0z1a2b3c4d5e"
                 *     ]
                 */
                credentialIds: string[];
                /**
                 * @description The caller's reference given at creation.
                 * @example order-4711
                 */
                callbackReference: string | null;
                /**
                 * @description The caller's subject reference given at creation.
                 * @example order-4711
                 */
                externalSubjectReference: string | null;
            };
        };
        /** @description The wallet asked again with the access token of a completed transaction (OpenID4VCI §14.3: its first answer was lost, or it wants fresh copies) and received further credentials: new status entries, recorded against the transaction like the first (revoking any of them revokes all). Possible while the access token lives (5 minutes from the code's redemption); the transaction completes only once. */
        IssuanceTransactionReissuedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "issuance.transaction.reissued";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The issuance transaction's id.
                 * @example itx_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                transactionId: string;
                /**
                 * @description The issuer's id.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
                /**
                 * @description Identifier of the credential configuration.
                 * @example employee-badge
                 */
                credentialConfiguration: string;
                /**
                 * @description The transaction's state after the change.
                 * @constant
                 */
                status: "completed";
                /**
                 * @description Ids of the credentials issued by this request.
                 * @example [
                 *       "cred_01jd5x6c3v8w9y0z1a2b3c4d5e"
                 *     ]
                 */
                credentialIds: string[];
                /**
                 * @description The caller's reference given at creation.
                 * @example order-4711
                 */
                callbackReference: string | null;
                /**
                 * @description The caller's subject reference given at creation.
                 * @example order-4711
                 */
                externalSubjectReference: string | null;
            };
        };
        /** @description The wallet asked for the credential of a deferred transaction before its claims were supplied; it was told to come back (HTTP 202) and waits. Supply the claims with IssuanceTransactions_SupplyClaims. */
        IssuanceTransactionDeferredEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "issuance.transaction.deferred";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The issuance transaction's id.
                 * @example itx_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                transactionId: string;
                /**
                 * @description The issuer's id.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
                /**
                 * @description Identifier of the credential configuration.
                 * @example employee-badge
                 */
                credentialConfiguration: string;
                /**
                 * @description The transaction's state after the change.
                 * @constant
                 */
                status: "pending";
                /**
                 * @description The caller's reference given at creation.
                 * @example order-4711
                 */
                callbackReference: string | null;
                /**
                 * @description The caller's subject reference given at creation.
                 * @example order-4711
                 */
                externalSubjectReference: string | null;
            };
        };
        /** @description A pending issuance transaction was cancelled (IssuanceTransactions_Cancel). */
        IssuanceTransactionCancelledEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "issuance.transaction.cancelled";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The issuance transaction's id.
                 * @example itx_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                transactionId: string;
                /**
                 * @description The issuer's id.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
                /**
                 * @description Identifier of the credential configuration.
                 * @example employee-badge
                 */
                credentialConfiguration: string;
                /**
                 * @description The transaction's state after the change.
                 * @constant
                 */
                status: "cancelled";
                /**
                 * @description The caller's reference given at creation.
                 * @example order-4711
                 */
                callbackReference: string | null;
                /**
                 * @description The caller's subject reference given at creation.
                 * @example order-4711
                 */
                externalSubjectReference: string | null;
            };
        };
        /** @description A pending issuance transaction reached its expiry unredeemed. Emitted once by the background sweeper (within about a minute of the expiry). */
        IssuanceTransactionExpiredEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "issuance.transaction.expired";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The issuance transaction's id.
                 * @example itx_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                transactionId: string;
                /**
                 * @description The issuer's id.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
                /**
                 * @description Identifier of the credential configuration.
                 * @example employee-badge
                 */
                credentialConfiguration: string;
                /**
                 * @description The transaction's state after the change.
                 * @constant
                 */
                status: "expired";
                /**
                 * @description The caller's reference given at creation.
                 * @example order-4711
                 */
                callbackReference: string | null;
                /**
                 * @description The caller's subject reference given at creation.
                 * @example order-4711
                 */
                externalSubjectReference: string | null;
            };
        };
        /** @description A credential was revoked (Credentials_Revoke); its status list entry now says so. */
        CredentialRevokedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "credential.revoked";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The credential's id.
                 * @example cred_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                credentialId: string;
                /**
                 * @description The issuer's id.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
                /**
                 * @description Identifier of the credential configuration.
                 * @example employee-badge
                 */
                credentialConfiguration: string;
                /**
                 * @description The issuance transaction that issued it.
                 * @example itx_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                transactionId: string;
                /**
                 * @description The credential's state after the change.
                 * @constant
                 */
                status: "revoked";
            };
        };
        /** @description A credential was suspended (Credentials_Suspend); its status list entry now says SUSPENDED (2). One event per copy of the batch. */
        CredentialSuspendedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "credential.suspended";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The credential's id.
                 * @example cred_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                credentialId: string;
                /**
                 * @description The issuer's id.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
                /**
                 * @description Identifier of the credential configuration.
                 * @example employee-badge
                 */
                credentialConfiguration: string;
                /**
                 * @description The issuance transaction that issued it.
                 * @example itx_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                transactionId: string;
                /**
                 * @description The credential's state after the change.
                 * @constant
                 */
                status: "suspended";
            };
        };
        /** @description A suspended credential was reinstated (Credentials_Reinstate); its status list entry is VALID (0) again. One event per copy of the batch. */
        CredentialReinstatedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "credential.reinstated";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The credential's id.
                 * @example cred_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                credentialId: string;
                /**
                 * @description The issuer's id.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
                /**
                 * @description Identifier of the credential configuration.
                 * @example employee-badge
                 */
                credentialConfiguration: string;
                /**
                 * @description The issuance transaction that issued it.
                 * @example itx_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                transactionId: string;
                /**
                 * @description The credential's state after the change.
                 * @constant
                 */
                status: "active";
            };
        };
        /** @description The wallet reported that it accepted and stored the credential(s) (OpenID4VCI notification). */
        CredentialAcceptedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "credential.accepted";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The issuance transaction whose credentials the wallet reports on.
                 * @example itx_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                transactionId: string;
                /**
                 * @description The issuer's id.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
                /** @description The credentials of that transaction. */
                credentialIds: string[];
                /**
                 * @description The wallet's notification event (OpenID4VCI §11).
                 * @constant
                 */
                event: "credential_accepted";
            };
        };
        /** @description The wallet reported that storing the credential(s) failed (OpenID4VCI notification). */
        CredentialFailedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "credential.failed";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The issuance transaction whose credentials the wallet reports on.
                 * @example itx_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                transactionId: string;
                /**
                 * @description The issuer's id.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
                /** @description The credentials of that transaction. */
                credentialIds: string[];
                /**
                 * @description The wallet's notification event (OpenID4VCI §11).
                 * @constant
                 */
                event: "credential_failure";
            };
        };
        /** @description The wallet reported that the holder deleted the credential(s) (OpenID4VCI notification). */
        CredentialDeletedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "credential.deleted";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The issuance transaction whose credentials the wallet reports on.
                 * @example itx_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                transactionId: string;
                /**
                 * @description The issuer's id.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
                /** @description The credentials of that transaction. */
                credentialIds: string[];
                /**
                 * @description The wallet's notification event (OpenID4VCI §11).
                 * @constant
                 */
                event: "credential_deleted";
            };
        };
        /** @description A verification session was created (Verifications_Create); it waits for the wallet. */
        VerificationSessionCreatedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "verification.session.created";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The verification session's id.
                 * @example vs_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                verificationSessionId: string;
                /**
                 * @description The session's state after the change.
                 * @constant
                 */
                status: "pending";
                /**
                 * @description Identifier of the verification policy.
                 * @example over-18
                 */
                policy: string;
            };
        };
        /** @description The wallet's presentation passed every check. Fetch the session for the (claim-minimised) result; the event carries no claims. */
        VerificationSessionVerifiedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "verification.session.verified";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The verification session's id.
                 * @example vs_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                verificationSessionId: string;
                /**
                 * @description The session's state after the change.
                 * @constant
                 */
                status: "verified";
                /**
                 * @description Identifier of the verification policy.
                 * @example over-18
                 */
                policy: string;
            };
        };
        /** @description The wallet's presentation failed a check. Fetch the session for the reasons. */
        VerificationSessionRejectedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "verification.session.rejected";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The verification session's id.
                 * @example vs_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                verificationSessionId: string;
                /**
                 * @description The session's state after the change.
                 * @constant
                 */
                status: "rejected";
                /**
                 * @description Identifier of the verification policy.
                 * @example over-18
                 */
                policy: string;
            };
        };
        /** @description A pending verification session was cancelled. */
        VerificationSessionCancelledEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "verification.session.cancelled";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The verification session's id.
                 * @example vs_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                verificationSessionId: string;
                /**
                 * @description The session's state after the change.
                 * @constant
                 */
                status: "cancelled";
                /**
                 * @description Identifier of the verification policy.
                 * @example over-18
                 */
                policy: string;
            };
        };
        /** @description A pending verification session reached its expiry unanswered. Emitted once, either when the session is read after its expiry or by the background sweeper, whichever comes first. */
        VerificationSessionExpiredEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "verification.session.expired";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The verification session's id.
                 * @example vs_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                verificationSessionId: string;
                /**
                 * @description The session's state after the change.
                 * @constant
                 */
                status: "expired";
                /**
                 * @description Identifier of the verification policy.
                 * @example over-18
                 */
                policy: string;
            };
        };
        /** @description An issuer was activated (Issuers_Activate) and can issue. */
        IssuerActivatedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "issuer.activated";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The issuer's id.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
                /**
                 * @description Reference of the issuer's organisation.
                 * @example acme
                 */
                organisationReference: string;
                /**
                 * @description The issuer's credential issuer identifier (URL).
                 * @example https://credentials.example.com/issuers/iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                credentialIssuer: string;
                /**
                 * @description Activation time (ISO 8601).
                 * @example 2026-08-30T12:00:00.000Z
                 */
                activatedAt: string;
            };
        };
        /** @description A credential configuration was created with its version 1 active. */
        CredentialConfigurationCreatedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "credential_configuration.created";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The configuration's id.
                 * @example cc_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                credentialConfigurationId: string;
                /**
                 * @description The configuration's identifier.
                 * @example employee-badge
                 */
                identifier: string;
                /**
                 * @description The issuer's id.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
                /**
                 * @description The SD-JWT VC `vct`.
                 * @example https://credentials.example.com/vct/employee-badge
                 */
                credentialType: string;
                /**
                 * @description The active version.
                 * @example 1
                 */
                version: number;
            };
        };
        /** @description Another version of a credential configuration became the active one (a new version, or an earlier one activated again); transactions created from now on use it. */
        CredentialConfigurationVersionActivatedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "credential_configuration.version_activated";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The configuration's id.
                 * @example cc_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                credentialConfigurationId: string;
                /**
                 * @description The configuration's identifier.
                 * @example employee-badge
                 */
                identifier: string;
                /**
                 * @description The issuer's id.
                 * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                issuerId: string;
                /**
                 * @description The SD-JWT VC `vct`.
                 * @example https://credentials.example.com/vct/employee-badge
                 */
                credentialType: string;
                /**
                 * @description The version now active.
                 * @example 2
                 */
                version: number;
                /**
                 * @description The version active before.
                 * @example 1
                 */
                previousVersion: number;
            };
        };
        /** @description A verification policy was suspended; new verifications under it are refused. */
        VerificationPolicySuspendedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "verification_policy.suspended";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The verification policy's identifier.
                 * @example over-18
                 */
                identifier: string;
                /**
                 * @description The policy's display name.
                 * @example Age over 18
                 */
                displayName: string;
                /**
                 * @description The policy's state after the change.
                 * @constant
                 */
                status: "suspended";
            };
        };
        /** @description A suspended verification policy was reactivated. */
        VerificationPolicyReactivatedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "verification_policy.reactivated";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The verification policy's identifier.
                 * @example over-18
                 */
                identifier: string;
                /**
                 * @description The policy's display name.
                 * @example Age over 18
                 */
                displayName: string;
                /**
                 * @description The policy's state after the change.
                 * @constant
                 */
                status: "active";
            };
        };
        /** @description Another version of a verification policy became the active one (a new version, or an earlier one activated again); verifications started from now on run under it, those started earlier keep theirs. */
        VerificationPolicyVersionActivatedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "verification_policy.version_activated";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The verification policy's identifier.
                 * @example over-18
                 */
                identifier: string;
                /**
                 * @description The active version's display name.
                 * @example Age over 18
                 */
                displayName: string;
                /**
                 * @description The policy's state (a version change does not change it).
                 * @example active
                 * @enum {string}
                 */
                status: "active" | "suspended";
                /**
                 * @description The version now active.
                 * @example 2
                 */
                version: number;
                /**
                 * @description The version active before.
                 * @example 1
                 */
                previousVersion: number;
            };
        };
        /** @description A trust source's list could not be fetched or did not verify; the last good copy is kept (stale while its NextUpdate has not passed). */
        TrustSourceRefreshFailedEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "trust_source.refresh_failed";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The trust source's id.
                 * @example ts_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                trustSourceId: string;
                /**
                 * @description Where the list is fetched from.
                 * @example https://tl.example/lotl.xml
                 */
                url: string;
                /**
                 * @description The trust source's status after the failure.
                 * @example stale
                 * @enum {string}
                 */
                status: "pending" | "current" | "stale" | "expired";
                /**
                 * @description Why: BadSignature, UnknownSigner, ListExpired, WrongReference, UnsupportedAlgorithm, MalformedList, SequenceNumberDecreased or FetchFailed.
                 * @example BadSignature
                 */
                code: string;
                /**
                 * @description What failed, in words.
                 * @example the signature does not verify
                 */
                message: string;
            };
        };
        /** @description A list of a trust source's last good copy has passed its NextUpdate without a successful refresh: the services of that list are no longer trusted until a refresh succeeds. Sent once per lapsed copy. */
        TrustSourceExpiredEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "trust_source.expired";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The trust source's id.
                 * @example ts_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                trustSourceId: string;
                /**
                 * @description Where the list is fetched from.
                 * @example https://tl.example/lotl.xml
                 */
                url: string;
                /**
                 * @description The NextUpdate (ISO 8601) that passed: the earliest of the copy's lists.
                 * @example 2026-08-30T12:00:00.000Z
                 */
                nextUpdate: string;
            };
        };
        /** @description The verifier certificate in use (the access certificate request objects are signed with) expires within the notice window (CERTIFICATE_EXPIRY_NOTICE_DAYS, default 30 days), or had expired when first seen. Sent once per certificate; import a renewed one (VerifierCertificates_CreateSigningRequest, VerifierCertificates_ImportAccessCertificate). */
        VerifierCertificateExpiringEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "verifier_certificate.expiring";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The leaf certificate's subject, as VerifierCertificates_Get shows it.
                 * @example CN=verifier.example.com, O=Webshop Oy, 2.5.4.97=VATFI-12345678, C=FI
                 */
                subject: string;
                /**
                 * @description The leaf certificate's serial number (hex), as VerifierCertificates_Get shows it.
                 * @example 4F3A9C
                 */
                serialNumber: string;
                /**
                 * @description Whether it is an access certificate (its subject has an organizationIdentifier).
                 * @example true
                 */
                accessCertificate: boolean;
                /**
                 * @description The subject's organizationIdentifier values.
                 * @example [
                 *       "VATFI-12345678"
                 *     ]
                 */
                organisationIdentifiers: string[];
                /**
                 * @description The leaf certificate's notAfter (ISO 8601).
                 * @example 2026-08-30T12:00:00.000Z
                 */
                expiresAt: string;
                /**
                 * @description Whole days until it expires, rounded up (0 or less: already expired).
                 * @example 30
                 */
                daysLeft: number;
            };
        };
        /** @description The registration certificate (WRPRC) expires within the notice window (CERTIFICATE_EXPIRY_NOTICE_DAYS, default 30 days), or had expired when first seen; once expired, verifications are refused (409 NotRegistered). Sent once per certificate; upload a renewed one (VerifierRegistrationCertificates_Upload). */
        RegistrationCertificateExpiringEvent: {
            /**
             * @description The event type.
             * @constant
             */
            type: "registration_certificate.expiring";
            /**
             * @description When the event occurred (ISO 8601). The same on every retry.
             * @example 2026-08-30T12:00:00.000Z
             */
            timestamp: string;
            /** @description The event payload: ids, states and caller references, never claims. */
            data: {
                /**
                 * @description The registration certificate's id (VerifierRegistrationCertificates_GetById; the default one's too).
                 * @example vreg_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                registrationCertificateId: string;
                /**
                 * @description The registered relying party's name.
                 * @example Webshop
                 */
                relyingParty: string | null;
                /**
                 * @description The relying party's identifiers (sub).
                 * @example [
                 *       "VATFI-12345678"
                 *     ]
                 */
                relyingPartyIds: string[];
                /**
                 * @description Its `exp` (ISO 8601).
                 * @example 2026-08-30T12:00:00.000Z
                 */
                expiresAt: string;
                /**
                 * @description Whole days until it expires, rounded up (0 or less: already expired).
                 * @example 30
                 */
                daysLeft: number;
            };
        };
    };
    responses: never;
    parameters: {
        /** @description Caller's own request id; echoed back and logged, never used for anything else. */
        ClientRequestId: string;
        /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
        IdempotencyKey: string;
    };
    requestBodies: never;
    headers: {
        /** @description Request id; quote it in support requests. */
        RequestId: string;
        /** @description The caller's `x-ms-client-request-id`, echoed when it was header-safe. */
        ClientRequestId: string;
        /** @description Product plane: the caller's `X-Correlation-Id`, echoed, or a generated one. */
        CorrelationId: string;
        /** @description Product plane: the request id again. */
        ProductRequestId: string;
        /** @description The key's remaining budget (IETF RateLimit header draft), e.g. `"default";r=1999;t=1`. */
        RateLimit: string;
        /** @description The key's budget, e.g. `"default";q=2000;w=1`. */
        RateLimitPolicy: string;
        /** @description `true` when this is the stored result of an earlier request with the same Idempotency-Key. */
        IdempotentReplayed: "true";
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    Organisations_List: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementCollectionOfOrganisation"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Organisations_Create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Caller-chosen slug, unique per tenant and environment; the path key.
                     * @example acme-bank
                     */
                    reference: string;
                    /**
                     * @description Name shown to people.
                     * @example Acme Bank
                     */
                    displayName: string;
                    /**
                     * @description Registered legal name.
                     * @example Acme Bank N.V.
                     */
                    legalName?: string | null;
                    /**
                     * @description ISO 3166-1 alpha-2 country of registration: an assigned code (or XK, Kosovo); reserved codes such as EU or ZZ are refused.
                     * @example NL
                     */
                    country?: string | null;
                    /**
                     * @description Registry identifiers (LEI, VAT, …).
                     * @default []
                     */
                    identifiers?: {
                        /**
                         * @description Identifier scheme, e.g. LEI, VAT, EUID.
                         * @example LEI
                         */
                        scheme: string;
                        /**
                         * @description The identifier in that scheme.
                         * @example 5493001KJTIIGC8Y1R12
                         */
                        value: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description The organisation was created. */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfOrganisation"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Organisations_Get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The organisation's reference. */
                organisationReference: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfOrganisation"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Organisations_Update: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The organisation's reference. */
                organisationReference: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Name shown to people.
                     * @example Acme Bank
                     */
                    displayName?: string;
                    /**
                     * @description New registered legal name; null clears it.
                     * @example Acme Bank N.V.
                     */
                    legalName?: string | null;
                    /**
                     * @description New ISO 3166-1 alpha-2 country of registration; null clears it.
                     * @example NL
                     */
                    country?: string | null;
                    /** @description Replaces the whole identifier list; null or [] clears it. */
                    identifiers?: {
                        /**
                         * @description Identifier scheme, e.g. LEI, VAT, EUID.
                         * @example LEI
                         */
                        scheme: string;
                        /**
                         * @description The identifier in that scheme.
                         * @example 5493001KJTIIGC8Y1R12
                         */
                        value: string;
                    }[] | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfOrganisation"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Issuers_List: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                organisationReference?: string;
                status?: "draft" | "active";
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementCollectionOfIssuer"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Issuers_Create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Caller-chosen slug, unique per tenant and environment; the path key.
                     * @example acme-bank
                     */
                    organisationReference: string;
                    /**
                     * @description Name of the issuer shown in the console and to integrators.
                     * @example Acme Bank
                     */
                    displayName: string;
                    /**
                     * @description What the issuer issues, for people.
                     * @example Issues Acme account credentials.
                     */
                    description?: string;
                    /**
                     * Format: uri
                     * @description https URL of the issuer's logo.
                     * @example https://acme.example/logo.png
                     */
                    logoUri?: string;
                    /** @description Wallet-facing display metadata per locale; at least one entry is needed to activate. */
                    display?: components["schemas"]["IssuerDisplay"][];
                    /**
                     * @description Require DPoP at the token endpoint; default false.
                     * @example false
                     */
                    requireDpop?: boolean;
                    /**
                     * @description Require server-provided nonces in DPoP proofs; default false.
                     * @example false
                     */
                    requireDpopNonce?: boolean;
                    /** @description Accept (or require) wallet attestations from these wallet providers. */
                    walletAttestation?: components["schemas"]["IssuerWalletAttestation"];
                    /** @description Accept (or require) key attestations from these key attesters. */
                    keyAttestation?: components["schemas"]["IssuerKeyAttestation"];
                    /** @description Send people to this page to sign in and consent in the authorization code flow. */
                    authorizationPage?: components["schemas"]["AuthorizationPage"];
                    /** @description Take only these redirect URIs in the authorization code flow. */
                    allowedRedirectUris?: components["schemas"]["AllowedRedirectUris"];
                    /** @description Offer (or require) encrypted credential requests and responses; default: not offered. */
                    credentialEncryption?: components["schemas"]["IssuerCredentialEncryptionSettings"];
                    /** @description Who holds the issuer's private keys; default `software`. */
                    keyCustody?: components["schemas"]["KeyCustody"];
                    /** @description Sign status list tokens with a key of their own; default: the credential signing key. */
                    statusListSigning?: components["schemas"]["StatusListSigningSettings"];
                };
            };
        };
        responses: {
            /** @description The issuer was created (status draft). */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfIssuer"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description KeyCustodyUnavailable: the key store (a PKCS#11 token) holding a key this operation needs cannot be reached; nothing was changed. Retry after the number of seconds in Retry-After. */
            503: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Issuers_Get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description Identifier of the issuer. */
                issuerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfIssuer"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Issuers_Update: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description Identifier of the issuer. */
                issuerId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Caller-chosen slug, unique per tenant and environment; the path key.
                     * @example acme-bank
                     */
                    organisationReference?: string;
                    /**
                     * @description Name of the issuer shown in the console and to integrators.
                     * @example Acme Bank
                     */
                    displayName?: string;
                    /** @description New description; null clears it. */
                    description?: string | null;
                    /** @description New logo URL (https); null clears it. */
                    logoUri?: string | null;
                    /** @description Replaces the whole display list; null clears it. */
                    display?: components["schemas"]["IssuerDisplay"][] | null;
                    /**
                     * @description When true, the token endpoint answers a request without a DPoP proof with 400 invalid_dpop_proof, so every access token is DPoP-bound (HAIP via FAPI 2.0: sender-constrained tokens only). Wallets that do not do DPoP then cannot redeem offers of this issuer.
                     * @example false
                     */
                    requireDpop?: boolean;
                    /**
                     * @description When true, every DPoP proof sent to this issuer (token, PAR, credential and notification endpoints) must carry a nonce the issuer provided: a proof without one is answered use_dpop_nonce with a DPoP-Nonce header to retry with (RFC 9449 §8, §9), and every successful response of those endpoints and of the nonce endpoint carries a fresh DPoP-Nonce. A nonce is accepted for 300 s. It bounds how far ahead a stolen key's proofs can be made; bearer tokens are not affected.
                     * @example false
                     */
                    requireDpopNonce?: boolean;
                    /** @description Replaces the wallet attestation settings; null stops accepting attestations. */
                    walletAttestation?: components["schemas"]["IssuerWalletAttestation"] | null;
                    /** @description Replaces the key attestation settings; null stops reading key attestations. */
                    keyAttestation?: components["schemas"]["IssuerKeyAttestation"] | null;
                    /** @description Replaces the authorization page; null gives wallets their code at once again. */
                    authorizationPage?: components["schemas"]["AuthorizationPage"] | null;
                    /** @description Replaces the allowed redirect URIs; null takes any again. */
                    allowedRedirectUris?: components["schemas"]["AllowedRedirectUris"] | null;
                    /** @description Turns encrypted credential requests and responses on (a key is made) or changes `required` (the key stays); null turns them off and discards the key. */
                    credentialEncryption?: components["schemas"]["IssuerCredentialEncryptionSettings"] | null;
                    /** @description Where keys made from now on are held; the current keys stay where they are until the next rotation. */
                    keyCustody?: components["schemas"]["KeyCustody"];
                    /** @description separateKey true makes a status list signing key (in the issuer's key custody) when there is none; false discards it, and the credential signing key signs status lists again. */
                    statusListSigning?: components["schemas"]["StatusListSigningSettings"];
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfIssuer"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Issuers_Activate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description Identifier of the issuer. */
                issuerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfIssuer"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Issuers_RotateSigningKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description Identifier of the issuer. */
                issuerId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description `keep` (default): the replaced key stays published, so credentials it signed keep verifying. `withdraw`: it is no longer published (a compromised key), so they stop verifying; revoke and re-issue them.
                     * @default keep
                     * @example keep
                     * @enum {string}
                     */
                    replacedKey?: "keep" | "withdraw";
                };
            };
        };
        responses: {
            /** @description The issuer with its new signing key. */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfIssuer"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description KeyCustodyUnavailable: the key store (a PKCS#11 token) holding a key this operation needs cannot be reached; nothing was changed. Retry after the number of seconds in Retry-After. */
            503: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Issuers_RotateCredentialEncryptionKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description Identifier of the issuer. */
                issuerId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description How long requests encrypted to the replaced key are still decrypted (wallets that read the metadata before the rotation); 0 stops at once. Default one day, at most seven.
                     * @default 86400
                     * @example 86400
                     */
                    overlapSeconds?: number;
                };
            };
        };
        responses: {
            /** @description The issuer with its new credential encryption key. */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfIssuer"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Issuers_PrepareSigningKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description Identifier of the issuer. */
                issuerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The issuer with its prepared next key. */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfIssuer"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description KeyCustodyUnavailable: the key store (a PKCS#11 token) holding a key this operation needs cannot be reached; nothing was changed. Retry after the number of seconds in Retry-After. */
            503: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Issuers_DiscardNextSigningKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description Identifier of the issuer. */
                issuerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The issuer without a prepared next key. */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfIssuer"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Issuers_GetCertificateSigningRequest: {
        parameters: {
            query?: {
                key?: "current" | "next";
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description Identifier of the issuer. */
                issuerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfIssuerCertificateSigningRequest"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description KeyCustodyUnavailable: the key store (a PKCS#11 token) holding a key this operation needs cannot be reached; nothing was changed. Retry after the number of seconds in Retry-After. */
            503: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Issuers_SetSigningCertificate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description Identifier of the issuer. */
                issuerId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description `current` (default): the key signing now. `next`: the key prepared by Issuers_PrepareSigningKey.
                     * @default current
                     * @example current
                     * @enum {string}
                     */
                    key?: "current" | "next";
                    /**
                     * @description PEM certificates, leaf first, each issued by the next (at most 5), each valid now. The leaf must certify the signing key chosen by `key` (current by default, or the prepared next one), be an end-entity certificate that is not self-signed and allows digitalSignature, and name `credentialIssuer` as a URI subjectAltName. A trailing self-signed root is kept here but not sent in `x5c`.
                     * @example -----BEGIN CERTIFICATE-----
                     *     MIIB2zCCAYCgAwIBAgICEAEwCgYIKoZIzj0EAwIwLjEYMBYGA1UEAxMPQWNtZSBF
                     *     eGFtcGxlIENBMRIwEAYDVQQKEwlBY21lIEJhbmswIBcNMjUwMTAxMDAwMDAwWhgP
                     *     MjEyNTAxMDEwMDAwMDBaMCgxEjAQBgNVBAMTCUFjbWUgQmFuazESMBAGA1UEChMJ
                     *     QWNtZSBCYW5rMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEH0d+wsRrzd8hGUzQ
                     *     mg5Zn3IuCBqkUE4pWpcYZoMMO9ksiGvFS/+1JdpLjhu/Vzm8l1MwgwR05AQJAV8X
                     *     k9xZeqOBkTCBjjAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIHgDBNBgNVHREE
                     *     RjBEhkJodHRwczovL2NyZWRlbnRpYWxzLmV4YW1wbGUvaXNzdWVycy9pc3NfMDFq
                     *     ZDV4NmMzdjh3OXkwejFhMmIzYzRkNWUwHwYDVR0jBBgwFoAUMLvjddqyKjtR4v02
                     *     Dk0K21SucZcwCgYIKoZIzj0EAwIDSQAwRgIhAMOnGfU3vWLVVw2ZOyp0oOKH7oQT
                     *     RgoaXdeowmY7qHOpAiEAiyA5CZxwrxUtZuh70Nphq+qjgypHr0dyO45xRyiXxbQ=
                     *     -----END CERTIFICATE-----
                     *     -----BEGIN CERTIFICATE-----
                     *     MIIBkTCCATigAwIBAgIBATAKBggqhkjOPQQDAjAuMRgwFgYDVQQDEw9BY21lIEV4
                     *     YW1wbGUgQ0ExEjAQBgNVBAoTCUFjbWUgQmFuazAgFw0yNTAxMDEwMDAwMDBaGA8y
                     *     MTI1MDEwMTAwMDAwMFowLjEYMBYGA1UEAxMPQWNtZSBFeGFtcGxlIENBMRIwEAYD
                     *     VQQKEwlBY21lIEJhbmswWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQZynZXtWyt
                     *     EfRLCPGjLtvfUE+xbubSJNLNyw7bb+nZM9el84H+y/UgnPJwgzGdJ9qvrAyrUZQ6
                     *     iQVW3wHtE/5Ao0UwQzASBgNVHRMBAf8ECDAGAQH/AgEAMA4GA1UdDwEB/wQEAwIB
                     *     BjAdBgNVHQ4EFgQUMLvjddqyKjtR4v02Dk0K21SucZcwCgYIKoZIzj0EAwIDRwAw
                     *     RAIgM1jdh0D3Som9za0MVYEX731o0VX07XbqD81GgL7SM7YCIFM4+vf0QmhuQyC4
                     *     qBGeunOYhA/pwO0LHi9WByLbg7eS
                     *     -----END CERTIFICATE-----
                     */
                    certificateChainPem: string;
                };
            };
        };
        responses: {
            /** @description The issuer with its signing certificate. */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfIssuer"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Issuers_DeleteSigningCertificate: {
        parameters: {
            query?: {
                key?: "current" | "next";
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description Identifier of the issuer. */
                issuerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The issuer without a signing certificate. */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfIssuer"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Issuers_GetReadiness: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description Identifier of the issuer. */
                issuerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfIssuerReadinessResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    CredentialConfigurations_List: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                issuerId?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementCollectionOfPublicCredentialConfigurationResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    CredentialConfigurations_Create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Caller-chosen identifier, unique per tenant and environment; callers name it at issuance.
                     * @example membership-card
                     */
                    identifier: string;
                    /**
                     * @description Name of the credential shown to people.
                     * @example Membership card
                     */
                    displayName: string;
                    /**
                     * @description The issuer that issues credentials of this configuration.
                     * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                     */
                    issuerId: string;
                    /**
                     * @description Identifier of the schema this configuration implements (caller-defined, e.g. a URI).
                     * @example https://schemas.acme.example/membership/v1
                     */
                    schemaId: string;
                    /** @description The SD-JWT VC `vct`; defaults to `<credentialIssuer>/credentials/<identifier>`. */
                    credentialType?: string | null;
                    /** @description The claims schema; unrecognised claims are refused at issuance. */
                    claims?: components["schemas"]["ClaimDefinition"][] | null;
                    /**
                     * Format: int32
                     * @description Validity of issued credentials in days (int32, 1–36500).
                     * @example 365
                     */
                    defaultLifetimeDays?: number;
                    /**
                     * @description Credential format; only `dc+sd-jwt` (platform limit).
                     * @example dc+sd-jwt
                     */
                    format?: string | null;
                    /**
                     * @description Signing algorithm; only `ES256` (platform limit).
                     * @example ES256
                     */
                    signingAlgorithm?: string | null;
                    /**
                     * @description Bind credentials to the holder's key (`cnf`). Default true.
                     * @example true
                     */
                    holderBindingRequired?: boolean;
                    /**
                     * @description Give credentials a status list entry so they can be revoked. Default true.
                     * @example true
                     */
                    statusEnabled?: boolean;
                    /**
                     * @description Extension: fix the Type Metadata served at the default `credentialType` now, and put its `vct#integrity` into every credential. Later versions may change claim types and constraints but not the claims the document describes (409 `TypeMetadataPinned`). Only with the default `credentialType`. Default false.
                     * @example false
                     */
                    pinTypeMetadata?: boolean;
                    /**
                     * @description Why this version exists; recorded on version 1.
                     * @example Initial version
                     */
                    reason?: string | null;
                };
            };
        };
        responses: {
            /** @description The configuration was created with version 1 active. */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfPublicCredentialConfigurationResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    CredentialConfigurations_Get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The configuration's identifier (the name callers use at issuance). */
                configurationIdentifier: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfPublicCredentialConfigurationResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    CredentialConfigurations_GetVersion: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The configuration's identifier (the name callers use at issuance). */
                configurationIdentifier: string;
                /** @description The version to read. */
                version: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfCredentialConfigurationVersionDetail"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    CredentialConfigurations_CreateVersion: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The configuration's identifier (the name callers use at issuance). */
                configurationIdentifier: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The new version's claims schema, which replaces the active one's for transactions created from now on. */
                    claims: components["schemas"]["ClaimDefinition"][];
                    /**
                     * @description Why this version exists.
                     * @example Adds the membership level
                     */
                    reason?: string | null;
                };
            };
        };
        responses: {
            /** @description The version was created and is now the active one. */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfPublicCredentialConfigurationResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    CredentialConfigurations_ActivateVersion: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The configuration's identifier (the name callers use at issuance). */
                configurationIdentifier: string;
                /** @description The version to make the active one. */
                version: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfPublicCredentialConfigurationResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerificationPolicies_List: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementCollectionOfPublicVerificationPolicyResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerificationPolicies_Create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Caller-chosen identifier, unique per tenant and environment; named when starting a verification.
                     * @example over-18
                     */
                    identifier: string;
                    /**
                     * @description Name shown to people.
                     * @example Age over 18
                     */
                    displayName: string;
                    /**
                     * @description Default purpose shown to the holder.
                     * @example Age check at checkout
                     */
                    purpose?: string | null;
                    /** @description Credentials requested from the holder. */
                    credentials: components["schemas"]["VerificationPolicyCredential"][];
                    /**
                     * @description Combinations of credentials that satisfy the request; null means all credentials.
                     * @default null
                     */
                    credentialSets?: components["schemas"]["VerificationPolicyCredentialSet"][] | null;
                    /**
                     * @description OpenID4VP response mode; `direct_post.jwt` encrypts the wallet's response.
                     * @default direct_post.jwt
                     * @example direct_post.jwt
                     * @enum {string}
                     */
                    responseMode?: "direct_post.jwt" | "direct_post";
                    /**
                     * @description Verifications over the browser's Digital Credentials API (OpenID4VP Appendix A; response mode `dc_api.jwt` when `responseMode` is `direct_post.jwt`, else `dc_api`): `off`, `signed` only (`openid4vp-v1-signed` with `expected_origins`, as HAIP requires, or `openid4vp-v1-multisigned`), or `signed_or_unsigned` (also `openid4vp-v1-unsigned`, where the page's origin identifies the verifier).
                     * @default signed_or_unsigned
                     * @example signed
                     * @enum {string}
                     */
                    dcApi?: "off" | "signed" | "signed_or_unsigned";
                    /**
                     * @description How long a verification session stays open, 60–3600 seconds.
                     * @default 600
                     * @example 600
                     */
                    sessionLifetimeSeconds?: number;
                    /**
                     * @description Client identifier prefix of the verifier in the wallet request: `x509_hash` (HAIP, hash of the verifier certificate) or `x509_san_dns` (the certificate's dNSName, which must be the public host, and that a DNS name, not an IP address; otherwise starting a verification fails with 409 VerifierCertificateMismatch), both with a signed request object; or `redirect_uri` (OpenID4VP §5.9.3, the low-assurance option for a verifier without a certificate: the client_id is the session's response URI and the unsigned request travels by value in `authorizationRequestUri`; `responseMode: direct_post` only, and no signed Digital Credentials API requests); or `decentralized_identifier` (§5.9.3: the client_id is the `did:jwk` of the verifier certificate's key, and request objects carry `kid` = its verification method instead of `x5c`).
                     * @default x509_hash
                     * @example x509_hash
                     * @enum {string}
                     */
                    clientIdPrefix?: "x509_hash" | "x509_san_dns" | "redirect_uri" | "decentralized_identifier";
                    /**
                     * @description The DID of a `decentralized_identifier` verifier: `jwk` (`did:jwk` of the verifier certificate's key; a new key is a new DID) or `web` (`did:web:<public host>:verifier:<tenantId>:<environment>`, whose DID document the platform serves at `<public base URL>/verifier/<tenantId>/<environment>/did.json` with the current verifier key; request objects carry `kid` = `<did>#<JWK thumbprint>`; the DID survives a certificate replacement). Only with `clientIdPrefix: decentralized_identifier`.
                     * @default jwk
                     * @example jwk
                     * @enum {string}
                     */
                    didMethod?: "jwk" | "web";
                    /**
                     * @description https URL the wallet returns the user to in same-device flows; null for none.
                     * @default null
                     * @example https://shop.example.com/checkout/verified
                     */
                    sameDeviceRedirectUri?: string | null;
                    /**
                     * @description The relying party (RelyingParties_Create) this tenant acts for as an intermediary under this policy: verifications are recorded as its, carry its registration certificates in `verifier_info` (those `registrationCertificateIds` names, which must be its, or else all of its own) and may ask only for what they register. Absent: the tenant is itself the relying party (docs/api/relying-party-certificates.md, "Intermediaries").
                     * @example rp_01jd5x6c3v8w9y0z1a2b3c4d5e
                     */
                    relyingPartyId?: string;
                    /** @description The relying party's registration certificates (WRPRC, ETSI TS 119 475) verifications under this policy carry in `verifier_info` and are limited by: each DCQL credential query must be registered by at least one of them (409 NotRegistered otherwise). Absent: the environment's default registration certificate, if any (docs/api/relying-party-certificates.md). */
                    registrationCertificateIds?: string[];
                    /**
                     * @description Attestations about the verifier sent with every request of this policy as `verifier_info` (OpenID4VP §5.1); null for none.
                     * @default null
                     */
                    verifierInfo?: components["schemas"]["VerificationPolicyVerifierInfo"][] | null;
                    /**
                     * @description When true, a wallet response whose presentation fails integrity or holder binding (issuer signature, disclosures, key binding JWT signature, `aud`, `nonce`, `iat`, `sd_hash`, transaction data hashes, a malformed `vp_token`) and so leaves the session `rejected` is answered at the response endpoint with HTTP 400 `{ error: "invalid_request" }` (OpenID4VP §8.5) instead of 200 and the redirect, so the wallet tells the holder at once. The session is decided exactly as with false (`rejected`, same reasons, event and webhooks). A presentation that is genuine but not accepted (untrusted issuer, expired, revoked, missing claims) and a wallet's own error response are still answered 200. Default false: every response the endpoint could process is answered 200.
                     * @default false
                     * @example false
                     */
                    reportInvalidPresentationsToWallet?: boolean;
                    /**
                     * @description When true (needs `sameDeviceRedirectUri`), a session a wallet answered shows its `result` only to a Verifications_Get that passes the `response_code` its redirect delivered (OpenID4VP §13.3, §14.2: the result then goes to the browser the holder came back in, not to whoever started the session). For same-device use only: in a cross-device flow the redirect opens on the phone and the code never reaches the relying party's front end.
                     * @default false
                     * @example false
                     */
                    requireResponseCode?: boolean;
                };
            };
        };
        responses: {
            /** @description The policy was created. */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfPublicVerificationPolicyResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerificationPolicies_Get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The policy's identifier. */
                policyIdentifier: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfPublicVerificationPolicyResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerificationPolicies_Suspend: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The policy's identifier. */
                policyIdentifier: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfPublicVerificationPolicyResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerificationPolicies_GetVersion: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The policy's identifier. */
                policyIdentifier: string;
                /** @description The version to read. */
                version: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfVerificationPolicyVersionDetail"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerificationPolicies_CreateVersion: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The policy's identifier. */
                policyIdentifier: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Name shown to people.
                     * @example Age over 18
                     */
                    displayName: string;
                    /**
                     * @description Default purpose shown to the holder.
                     * @example Age check at checkout
                     */
                    purpose?: string | null;
                    /** @description Credentials requested from the holder. */
                    credentials: components["schemas"]["VerificationPolicyCredential"][];
                    /**
                     * @description Combinations of credentials that satisfy the request; null means all credentials.
                     * @default null
                     */
                    credentialSets?: components["schemas"]["VerificationPolicyCredentialSet"][] | null;
                    /**
                     * @description OpenID4VP response mode; `direct_post.jwt` encrypts the wallet's response.
                     * @default direct_post.jwt
                     * @example direct_post.jwt
                     * @enum {string}
                     */
                    responseMode?: "direct_post.jwt" | "direct_post";
                    /**
                     * @description Verifications over the browser's Digital Credentials API (OpenID4VP Appendix A; response mode `dc_api.jwt` when `responseMode` is `direct_post.jwt`, else `dc_api`): `off`, `signed` only (`openid4vp-v1-signed` with `expected_origins`, as HAIP requires, or `openid4vp-v1-multisigned`), or `signed_or_unsigned` (also `openid4vp-v1-unsigned`, where the page's origin identifies the verifier).
                     * @default signed_or_unsigned
                     * @example signed
                     * @enum {string}
                     */
                    dcApi?: "off" | "signed" | "signed_or_unsigned";
                    /**
                     * @description How long a verification session stays open, 60–3600 seconds.
                     * @default 600
                     * @example 600
                     */
                    sessionLifetimeSeconds?: number;
                    /**
                     * @description Client identifier prefix of the verifier in the wallet request: `x509_hash` (HAIP, hash of the verifier certificate) or `x509_san_dns` (the certificate's dNSName, which must be the public host, and that a DNS name, not an IP address; otherwise starting a verification fails with 409 VerifierCertificateMismatch), both with a signed request object; or `redirect_uri` (OpenID4VP §5.9.3, the low-assurance option for a verifier without a certificate: the client_id is the session's response URI and the unsigned request travels by value in `authorizationRequestUri`; `responseMode: direct_post` only, and no signed Digital Credentials API requests); or `decentralized_identifier` (§5.9.3: the client_id is the `did:jwk` of the verifier certificate's key, and request objects carry `kid` = its verification method instead of `x5c`).
                     * @default x509_hash
                     * @example x509_hash
                     * @enum {string}
                     */
                    clientIdPrefix?: "x509_hash" | "x509_san_dns" | "redirect_uri" | "decentralized_identifier";
                    /**
                     * @description The DID of a `decentralized_identifier` verifier: `jwk` (`did:jwk` of the verifier certificate's key; a new key is a new DID) or `web` (`did:web:<public host>:verifier:<tenantId>:<environment>`, whose DID document the platform serves at `<public base URL>/verifier/<tenantId>/<environment>/did.json` with the current verifier key; request objects carry `kid` = `<did>#<JWK thumbprint>`; the DID survives a certificate replacement). Only with `clientIdPrefix: decentralized_identifier`.
                     * @default jwk
                     * @example jwk
                     * @enum {string}
                     */
                    didMethod?: "jwk" | "web";
                    /**
                     * @description https URL the wallet returns the user to in same-device flows; null for none.
                     * @default null
                     * @example https://shop.example.com/checkout/verified
                     */
                    sameDeviceRedirectUri?: string | null;
                    /**
                     * @description The relying party (RelyingParties_Create) this tenant acts for as an intermediary under this policy: verifications are recorded as its, carry its registration certificates in `verifier_info` (those `registrationCertificateIds` names, which must be its, or else all of its own) and may ask only for what they register. Absent: the tenant is itself the relying party (docs/api/relying-party-certificates.md, "Intermediaries").
                     * @example rp_01jd5x6c3v8w9y0z1a2b3c4d5e
                     */
                    relyingPartyId?: string;
                    /** @description The relying party's registration certificates (WRPRC, ETSI TS 119 475) verifications under this policy carry in `verifier_info` and are limited by: each DCQL credential query must be registered by at least one of them (409 NotRegistered otherwise). Absent: the environment's default registration certificate, if any (docs/api/relying-party-certificates.md). */
                    registrationCertificateIds?: string[];
                    /**
                     * @description Attestations about the verifier sent with every request of this policy as `verifier_info` (OpenID4VP §5.1); null for none.
                     * @default null
                     */
                    verifierInfo?: components["schemas"]["VerificationPolicyVerifierInfo"][] | null;
                    /**
                     * @description When true, a wallet response whose presentation fails integrity or holder binding (issuer signature, disclosures, key binding JWT signature, `aud`, `nonce`, `iat`, `sd_hash`, transaction data hashes, a malformed `vp_token`) and so leaves the session `rejected` is answered at the response endpoint with HTTP 400 `{ error: "invalid_request" }` (OpenID4VP §8.5) instead of 200 and the redirect, so the wallet tells the holder at once. The session is decided exactly as with false (`rejected`, same reasons, event and webhooks). A presentation that is genuine but not accepted (untrusted issuer, expired, revoked, missing claims) and a wallet's own error response are still answered 200. Default false: every response the endpoint could process is answered 200.
                     * @default false
                     * @example false
                     */
                    reportInvalidPresentationsToWallet?: boolean;
                    /**
                     * @description When true (needs `sameDeviceRedirectUri`), a session a wallet answered shows its `result` only to a Verifications_Get that passes the `response_code` its redirect delivered (OpenID4VP §13.3, §14.2: the result then goes to the browser the holder came back in, not to whoever started the session). For same-device use only: in a cross-device flow the redirect opens on the phone and the code never reaches the relying party's front end.
                     * @default false
                     * @example false
                     */
                    requireResponseCode?: boolean;
                    /**
                     * @description Why this version exists.
                     * @example Also asks for the family name
                     */
                    reason?: string | null;
                };
            };
        };
        responses: {
            /** @description The version was created and is now the active one. */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfPublicVerificationPolicyResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerificationPolicies_ActivateVersion: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The policy's identifier. */
                policyIdentifier: string;
                /** @description The version to make the active one. */
                version: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfPublicVerificationPolicyResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerificationPolicies_Reactivate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The policy's identifier. */
                policyIdentifier: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfPublicVerificationPolicyResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Verifications_Create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Identifier of a server-managed verification policy.
                     * @example over-18
                     */
                    policy: string;
                    /**
                     * @description Why the claims are asked for; defaults to the policy's purpose.
                     * @example Age check at checkout
                     */
                    purpose?: string | null;
                    /**
                     * @description The custom URL scheme of the link that invokes the wallet: `openid` (default) for `openid4vp://` (OpenID4VP §13.1.2), `haip` for `haip-vp://` (HAIP), which wallets built for the HAIP profile register. The link's parameters are the same.
                     * @default openid
                     * @example openid
                     * @enum {string}
                     */
                    invocation?: "openid" | "haip";
                    /** @description What the holder is asked to authorise with the presentation (OpenID4VP §5.1 `transaction_data`, e.g. a payment): each item is sent to the wallet as given, and the wallet must return its SHA-256 hash in the key binding JWT of a credential it names (Appendix B.3.3), or the session is rejected (`transaction_data_not_authorized`). Only wallets that support transaction data can answer such a request. */
                    transactionData?: components["schemas"]["TransactionData"][];
                    dcApi?: components["schemas"]["CreateVerificationDcApiOptions"];
                    /**
                     * @description Put the signed request object itself in `authorizationRequestUri` (`request=`, OpenID4VP §5 / RFC 9101) instead of a `request_uri` the wallet fetches: for short-lived same-device links, where the wallet needs no second round trip. The link is longer (several kB: too long for most QR codes), carries no `wallet_nonce` and names no wallet audience. Not with `dcApi` (400), nor for policies whose `clientIdPrefix` is `redirect_uri` (their requests are always by value, unsigned).
                     * @example false
                     */
                    requestByValue?: boolean;
                };
            };
        };
        responses: {
            /** @description The verification session was created. */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfVerificationSessionResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description KeyCustodyUnavailable: the key store (a PKCS#11 token) holding a key this operation needs cannot be reached; nothing was changed. Retry after the number of seconds in Retry-After. */
            503: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Verifications_Get: {
        parameters: {
            query?: {
                responseCode?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The verification session's id. */
                verificationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfVerificationSessionResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerificationSessions_Get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The verification session's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfVerificationSessionResponse"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerificationSessions_List: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                status?: "pending" | "verified" | "rejected" | "expired" | "cancelled";
                policy?: string;
                createdFrom?: string;
                createdTo?: string;
                reason?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiCollectionOfVerificationSession"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerificationSessions_Cancel: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The verification session's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfVerificationSessionResponse"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerificationSessions_Submit: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The verification session's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Id of the platform credential presented in `sdJwtVc`.
                     * @example cred_01jd5x6c3v8w9y0z1a2b3c4d5e
                     */
                    credentialId: string;
                    /** @description The presented SD-JWT VC (`<issuer-jwt>~<disclosures>~<kb-jwt>`); its KB-JWT carries `aud` = the request's client_id and the request's `nonce` (read both from the request object at `requestUri`). */
                    sdJwtVc: string;
                    /** @description The audience the presentation was made for; must equal the session's client_id. */
                    audience?: string | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfVerificationSessionResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerificationSessions_SubmitDcApiResponse: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The verification session's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The `protocol` of the DigitalCredential the page received; must be the request's.
                     * @example openid4vp-v1-signed
                     */
                    protocol: string;
                    /** @description The `data` of the DigitalCredential: `{ response: <JWE> }` for `dc_api.jwt`, `{ vp_token: {…} }` for `dc_api`, or a wallet error `{ error, error_description }`. */
                    data: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfVerificationSessionResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerifierCertificates_Get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfVerifierCertificateResponse"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerifierCertificates_Upload: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description PEM certificates, leaf first, each issued by the next. The leaf must be an EC P-256 (ES256) end-entity certificate with a dNSName subjectAltName, valid now. A trailing self-signed root is kept here but not sent in `x5c`.
                     * @example -----BEGIN CERTIFICATE-----
                     *     MIIBtTCCAVugAwIBAgICEAIwCgYIKoZIzj0EAwIwLjEYMBYGA1UEAxMPQWNtZSBF
                     *     eGFtcGxlIENBMRIwEAYDVQQKEwlBY21lIEJhbmswIBcNMjUwMTAxMDAwMDAwWhgP
                     *     MjEyNTAxMDEwMDAwMDBaMDMxHTAbBgNVBAMTFHZlcmlmaWVyLmV4YW1wbGUuY29t
                     *     MRIwEAYDVQQKEwlBY21lIEJhbmswWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAR4
                     *     Q3gSrPxiTV8oe74i0iCdWwH9jYQhmrlfCfB4v9D9hKvK96UVS+TU0TfpTnSLujzT
                     *     3krn1Ms41dMn6LapBVRYo2IwYDAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIH
                     *     gDAfBgNVHREEGDAWghR2ZXJpZmllci5leGFtcGxlLmNvbTAfBgNVHSMEGDAWgBQw
                     *     u+N12rIqO1Hi/TYOTQrbVK5xlzAKBggqhkjOPQQDAgNIADBFAiEA5c11VBF+j9J3
                     *     mlDu/Auk9eDCI+rlXnFIlAuZGvK9b5wCIBiVtly9gAUWQbBuMZPWWnpTzFQHDm9n
                     *     1Mhbj88U56TI
                     *     -----END CERTIFICATE-----
                     *     -----BEGIN CERTIFICATE-----
                     *     MIIBkTCCATigAwIBAgIBATAKBggqhkjOPQQDAjAuMRgwFgYDVQQDEw9BY21lIEV4
                     *     YW1wbGUgQ0ExEjAQBgNVBAoTCUFjbWUgQmFuazAgFw0yNTAxMDEwMDAwMDBaGA8y
                     *     MTI1MDEwMTAwMDAwMFowLjEYMBYGA1UEAxMPQWNtZSBFeGFtcGxlIENBMRIwEAYD
                     *     VQQKEwlBY21lIEJhbmswWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQZynZXtWyt
                     *     EfRLCPGjLtvfUE+xbubSJNLNyw7bb+nZM9el84H+y/UgnPJwgzGdJ9qvrAyrUZQ6
                     *     iQVW3wHtE/5Ao0UwQzASBgNVHRMBAf8ECDAGAQH/AgEAMA4GA1UdDwEB/wQEAwIB
                     *     BjAdBgNVHQ4EFgQUMLvjddqyKjtR4v02Dk0K21SucZcwCgYIKoZIzj0EAwIDRwAw
                     *     RAIgM1jdh0D3Som9za0MVYEX731o0VX07XbqD81GgL7SM7YCIFM4+vf0QmhuQyC4
                     *     qBGeunOYhA/pwO0LHi9WByLbg7eS
                     *     -----END CERTIFICATE-----
                     */
                    certificateChainPem: string;
                    /**
                     * @description The leaf's private key, PEM (PKCS#8 `PRIVATE KEY` or SEC1 `EC PRIVATE KEY`, unencrypted). Stored encrypted; never returned.
                     * @example -----BEGIN PRIVATE KEY-----
                     *     MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg0L6dAnx8IrPBwP9w
                     *     X8E3pfi+ipE6gH6k+Cr1NbnbvWGhRANCAAR4Q3gSrPxiTV8oe74i0iCdWwH9jYQh
                     *     mrlfCfB4v9D9hKvK96UVS+TU0TfpTnSLujzT3krn1Ms41dMn6LapBVRY
                     *     -----END PRIVATE KEY-----
                     */
                    privateKeyPem: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfVerifierCertificateResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerifierCertificates_CreateSigningRequest: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Subject `O`: the legal name of the relying party, or of the intermediary acting for it.
                     * @example Webshop Oy
                     */
                    organisationName: string;
                    /**
                     * @description Subject `organizationIdentifier` (2.5.4.97), built as ETSI EN 319 412-1 §5.1.4 says: `VAT`, `NTR`, `PSD` or `LEI` plus the country code, `-`, the identifier (e.g. `VATFI-12345678`, `LEIXG-…`), or a national scheme `XX:CC-…`. A registration certificate must name the same identifier as its subject (or its intermediary).
                     * @example VATFI-12345678
                     */
                    organisationIdentifier: string;
                    /**
                     * @description Subject `C`: ISO 3166-1 alpha-2 country of registration.
                     * @example FI
                     */
                    country: string;
                    /**
                     * @description Subject `CN`; the organisation name when omitted.
                     * @example Webshop Oy verifier
                     */
                    commonName?: string;
                    /**
                     * @description dNSName subjectAltNames to request; the public host when omitted (so `x509_san_dns` works). An imported certificate must keep at least one.
                     * @example [
                     *       "verifier.example.com"
                     *     ]
                     */
                    dnsNames?: string[];
                    /**
                     * @description Certificate policy OIDs to request in a certificatePolicies extension, as the access CA's certificate policy names them. Omitted: `0.4.0.194118.1.2`, NCP-l-eudiwrp, the normalised ETSI TS 119 411-8 policy for access certificates of legal persons (the subject requested here is one); name `0.4.0.194118.1.4` (QCP-l-eudiwrp) for a qualified one. The CA sets the policies it issues under.
                     * @example [
                     *       "0.4.0.194118.1.2"
                     *     ]
                     */
                    certificatePolicies?: string[];
                    /**
                     * Format: uri
                     * @description A website where the relying party can be contacted for helpdesk and support, requested as a uniformResourceIdentifier subjectAltName (ETSI TS 119 411-8 asks the certificate for at least one of a website, a telephone number or an email address; the CA takes them from the relying party's registration).
                     * @example https://webshop.example.com/support
                     */
                    contactUri?: string;
                    /**
                     * Format: email
                     * @description An email address for matters of the relying party's registration and use of wallets, requested as an rfc822Name subjectAltName.
                     * @example wallet-support@webshop.example.com
                     */
                    contactEmail?: string;
                    /** @description Who generates and holds the requested certificate's key; default `software`. */
                    keyCustody?: components["schemas"]["VerifierKeyCustody"];
                };
            };
        };
        responses: {
            /** @description The request was made; its key waits for the certificate. */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfVerifierCertificateSigningRequest"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description KeyCustodyUnavailable: the key store (a PKCS#11 token) holding a key this operation needs cannot be reached; nothing was changed. Retry after the number of seconds in Retry-After. */
            503: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerifierCertificates_ImportAccessCertificate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The certificate the access CA issued for the pending signing request, PEM, leaf first, then its issuing CAs (a trailing root is kept but not sent in `x5c`).
                     * @example -----BEGIN CERTIFICATE-----
                     *     MIIB…
                     *     -----END CERTIFICATE-----
                     */
                    certificateChainPem: string;
                    /**
                     * @description The access CA's root (PEM) the chain must validate to (RFC 5280 path validation); wallets trust access CAs through their trusted lists.
                     * @example -----BEGIN CERTIFICATE-----
                     *     MIIB…
                     *     -----END CERTIFICATE-----
                     */
                    trustAnchorPem: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfVerifierCertificateResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerifierRegistrationCertificates_Get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfVerifierRegistrationCertificate"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerifierRegistrationCertificates_Upload: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The registration certificate, a JWT (`typ: rc-wrp+jwt`, ETSI TS 119 475) signed by the registrar with `x5c`.
                     * @example eyJ0eXAiOiJyYy13cnArand0Ii…
                     */
                    registrationCertificate: string;
                    /**
                     * @description The registrar's root (PEM) the `x5c` chain must validate to.
                     * @example -----BEGIN CERTIFICATE-----
                     *     MIIB…
                     *     -----END CERTIFICATE-----
                     */
                    trustAnchorPem: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfVerifierRegistrationCertificate"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerifierRegistrationCertificates_Delete: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The registration certificate was removed; the body shows it as it was. */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfVerifierRegistrationCertificate"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerifierRegistrationCertificates_List: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementCollectionOfVerifierRegistrationCertificate"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerifierRegistrationCertificates_Add: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The registration certificate, a JWT (`typ: rc-wrp+jwt`, ETSI TS 119 475) signed by the registrar with `x5c`.
                     * @example eyJ0eXAiOiJyYy13cnArand0Ii…
                     */
                    registrationCertificate: string;
                    /**
                     * @description The registrar's root (PEM) the `x5c` chain must validate to.
                     * @example -----BEGIN CERTIFICATE-----
                     *     MIIB…
                     *     -----END CERTIFICATE-----
                     */
                    trustAnchorPem: string;
                };
            };
        };
        responses: {
            /** @description The registration certificate was added. */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfVerifierRegistrationCertificate"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerifierRegistrationCertificates_GetById: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The registration certificate's id. */
                registrationCertificateId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfVerifierRegistrationCertificate"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    VerifierRegistrationCertificates_Remove: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The registration certificate's id. */
                registrationCertificateId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The registration certificate was removed; the body shows it as it was. */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfVerifierRegistrationCertificate"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    RelyingParties_List: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementCollectionOfRelyingParty"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    RelyingParties_Create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description User-friendly name, as the registration certificate's `name` gives it to wallets.
                     * @example Webshop
                     */
                    name: string;
                    /**
                     * @description Legal name (`sub.legal_name`); null for none.
                     * @example Webshop Holding Company Ltd
                     */
                    legalName?: string | null;
                    /**
                     * @description The relying party's identifiers as its registration certificates name them in `sub` (ETSI EN 319 412-1 form, e.g. `VATFI-12345678`, `LEIXG-743700EB2QF2J1WRO915`). A registration certificate added for it must name one of them.
                     * @example [
                     *       "VATFI-12345678"
                     *     ]
                     */
                    identifiers: string[];
                    /**
                     * @description ISO 3166-1 alpha-2 country of establishment (`country`).
                     * @example FI
                     */
                    country?: string | null;
                    /**
                     * @description Where users learn about the relying party (`info_uri`).
                     * @example https://webshop.example.com
                     */
                    infoUri?: string | null;
                    /**
                     * @description Its privacy policy (`privacy_policy[].policyURI`).
                     * @example https://webshop.example.com/privacy
                     */
                    privacyPolicyUri?: string | null;
                    /**
                     * @description The registrar's register it is listed in (`registry_uri`).
                     * @example https://registry.example.eu
                     */
                    registryUri?: string | null;
                };
            };
        };
        responses: {
            /** @description The relying party was created. */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfRelyingParty"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    RelyingParties_Get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The relying party's id. */
                relyingPartyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfRelyingParty"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    RelyingParties_Delete: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The relying party's id. */
                relyingPartyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The relying party was deleted; the body shows it as it was. */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfRelyingParty"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    RelyingParties_Update: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The relying party's id. */
                relyingPartyId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description User-friendly name, as the registration certificate's `name` gives it to wallets.
                     * @example Webshop
                     */
                    name?: string;
                    /**
                     * @description Legal name (`sub.legal_name`); null for none.
                     * @example Webshop Holding Company Ltd
                     */
                    legalName?: string | null;
                    /**
                     * @description The relying party's identifiers as its registration certificates name them in `sub` (ETSI EN 319 412-1 form, e.g. `VATFI-12345678`, `LEIXG-743700EB2QF2J1WRO915`). A registration certificate added for it must name one of them.
                     * @example [
                     *       "VATFI-12345678"
                     *     ]
                     */
                    identifiers?: string[];
                    /**
                     * @description ISO 3166-1 alpha-2 country of establishment (`country`).
                     * @example FI
                     */
                    country?: string | null;
                    /**
                     * @description Where users learn about the relying party (`info_uri`).
                     * @example https://webshop.example.com
                     */
                    infoUri?: string | null;
                    /**
                     * @description Its privacy policy (`privacy_policy[].policyURI`).
                     * @example https://webshop.example.com/privacy
                     */
                    privacyPolicyUri?: string | null;
                    /**
                     * @description The registrar's register it is listed in (`registry_uri`).
                     * @example https://registry.example.eu
                     */
                    registryUri?: string | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfRelyingParty"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    RelyingParties_ListRegistrationCertificates: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The relying party's id. */
                relyingPartyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementCollectionOfVerifierRegistrationCertificate"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    RelyingParties_AddRegistrationCertificate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The relying party's id. */
                relyingPartyId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The registration certificate, a JWT (`typ: rc-wrp+jwt`, ETSI TS 119 475) signed by the registrar with `x5c`.
                     * @example eyJ0eXAiOiJyYy13cnArand0Ii…
                     */
                    registrationCertificate: string;
                    /**
                     * @description The registrar's root (PEM) the `x5c` chain must validate to.
                     * @example -----BEGIN CERTIFICATE-----
                     *     MIIB…
                     *     -----END CERTIFICATE-----
                     */
                    trustAnchorPem: string;
                };
            };
        };
        responses: {
            /** @description The registration certificate was added for the relying party. */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfVerifierRegistrationCertificate"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    TrustSources_List: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementCollectionOfTrustSource"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    TrustSources_Create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description `lotl`: an ETSI TS 119 612 list of trusted lists (XML), whose pointed-to lists are followed and verified with the signer certificates the LoTL gives for them; `tsl`: one TS 119 612 trusted list (XML); `lote`: a TS 119 602 list of trusted entities (compact JWS with the signer in `x5c`).
                     * @example lotl
                     * @enum {string}
                     */
                    kind: "lotl" | "tsl" | "lote";
                    /**
                     * Format: uri
                     * @description https URL of the list. Hosts that are or resolve to private, loopback, link-local or metadata addresses are refused.
                     * @example https://ec.europa.eu/tools/lotl/eu-lotl.xml
                     */
                    url: string;
                    /** @description The certificates that anchor the list: its signature must verify with one of them (for a LoTL, the LoTL's own signer; the national lists are checked against the certificates the LoTL points with). */
                    signerCertificates: string[];
                    /**
                     * @description How often the list is fetched again (seconds); the refresh comes earlier when a list's NextUpdate is sooner. A failed refresh is retried after a tenth of it (at least a minute).
                     * @example 21600
                     */
                    refreshIntervalSeconds?: number;
                    /**
                     * @description Free text.
                     * @example EU LoTL
                     */
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description The trust source was created with its first verified copy. */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfTrustSource"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error. */
            422: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    TrustSources_Get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The trust source's id. */
                trustSourceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfTrustSource"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    TrustSources_Delete: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The trust source's id. */
                trustSourceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The trust source was deleted; the body shows it as it was. */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfTrustSource"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    TrustSources_Update: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The trust source's id. */
                trustSourceId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The certificates that anchor the list: its signature must verify with one of them (for a LoTL, the LoTL's own signer; the national lists are checked against the certificates the LoTL points with). */
                    signerCertificates?: string[];
                    /**
                     * @description How often the list is fetched again (seconds); the refresh comes earlier when a list's NextUpdate is sooner. A failed refresh is retried after a tenth of it (at least a minute).
                     * @example 21600
                     */
                    refreshIntervalSeconds?: number;
                    /** @description Free text; null clears it. */
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfTrustSource"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    TrustSources_ListServices: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                serviceType?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The trust source's id. */
                trustSourceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementCollectionOfTrustSourceService"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    TrustSources_ListRefreshes: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The trust source's id. */
                trustSourceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementCollectionOfTrustSourceRefresh"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    TrustSources_Refresh: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The trust source's id. */
                trustSourceId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The lists verified; the body shows the new copy. */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfTrustSource"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Error. */
            422: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Webhooks_List: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementCollectionOfWebhookSubscription"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Webhooks_Create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description https endpoint that receives the events. Hosts that are or resolve to private, loopback, link-local or metadata addresses are refused.
                     * @example https://example.com/webhooks/credentials
                     */
                    url: string;
                    /**
                     * @description Event types to deliver, or `["*"]` for every event.
                     * @example [
                     *       "verification.session.verified",
                     *       "verification.session.rejected"
                     *     ]
                     */
                    events: ("issuance.transaction.created" | "issuance.transaction.completed" | "issuance.transaction.reissued" | "issuance.transaction.deferred" | "issuance.transaction.cancelled" | "issuance.transaction.expired" | "credential.revoked" | "credential.suspended" | "credential.reinstated" | "credential.accepted" | "credential.failed" | "credential.deleted" | "verification.session.created" | "verification.session.verified" | "verification.session.rejected" | "verification.session.cancelled" | "verification.session.expired" | "issuer.activated" | "credential_configuration.created" | "credential_configuration.version_activated" | "verification_policy.suspended" | "verification_policy.reactivated" | "verification_policy.version_activated" | "trust_source.refresh_failed" | "trust_source.expired" | "verifier_certificate.expiring" | "registration_certificate.expiring" | "*")[];
                    /**
                     * @description Free text for the integrator.
                     * @example Checkout backend
                     */
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description The subscription was created; store the secret now. */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfWebhookSubscriptionWithSecret"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Webhooks_Get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The webhook subscription's id. */
                subscriptionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfWebhookSubscription"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Webhooks_Delete: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The webhook subscription's id. */
                subscriptionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The subscription was deleted; the body shows it as it was. */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfWebhookSubscription"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Webhooks_Update: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The webhook subscription's id. */
                subscriptionId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description New https endpoint, checked as on Webhooks_Create. Deliveries still pending go to it from their next attempt.
                     * @example https://example.com/webhooks/credentials-v2
                     */
                    url?: string;
                    /**
                     * @description Replaces the event types delivered, or `["*"]` for every event. Events already queued for delivery are still delivered.
                     * @example [
                     *       "verification.session.verified"
                     *     ]
                     */
                    events?: ("issuance.transaction.created" | "issuance.transaction.completed" | "issuance.transaction.reissued" | "issuance.transaction.deferred" | "issuance.transaction.cancelled" | "issuance.transaction.expired" | "credential.revoked" | "credential.suspended" | "credential.reinstated" | "credential.accepted" | "credential.failed" | "credential.deleted" | "verification.session.created" | "verification.session.verified" | "verification.session.rejected" | "verification.session.cancelled" | "verification.session.expired" | "issuer.activated" | "credential_configuration.created" | "credential_configuration.version_activated" | "verification_policy.suspended" | "verification_policy.reactivated" | "verification_policy.version_activated" | "trust_source.refresh_failed" | "trust_source.expired" | "verifier_certificate.expiring" | "registration_certificate.expiring" | "*")[];
                    /**
                     * @description New free text for the integrator; null clears it.
                     * @example Checkout backend (v2)
                     */
                    description?: string | null;
                    /**
                     * @description `disabled` stops deliveries (pending ones are closed without an attempt); `active` resumes a subscription disabled by hand or by the delivery worker (after a 410 Gone or days of failures) and clears `disabledReason`.
                     * @example active
                     * @enum {string}
                     */
                    status?: "active" | "disabled";
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfWebhookSubscription"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Webhooks_RotateSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The webhook subscription's id. */
                subscriptionId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description How long deliveries stay signed with the replaced secret too (one more `v1,` signature), so receivers can switch over. 0 ends it, and any secret of an earlier rotation still overlapping, at once. Default one day, at most seven.
                     * @default 86400
                     * @example 86400
                     */
                    overlapSeconds?: number;
                };
            };
        };
        responses: {
            /** @description The secret was rotated; store the new one now. */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfWebhookSubscriptionWithSecret"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    WebhookDeliveries_List: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                subscriptionId?: string;
                status?: "pending" | "succeeded" | "failed";
                eventType?: "issuance.transaction.created" | "issuance.transaction.completed" | "issuance.transaction.reissued" | "issuance.transaction.deferred" | "issuance.transaction.cancelled" | "issuance.transaction.expired" | "credential.revoked" | "credential.suspended" | "credential.reinstated" | "credential.accepted" | "credential.failed" | "credential.deleted" | "verification.session.created" | "verification.session.verified" | "verification.session.rejected" | "verification.session.cancelled" | "verification.session.expired" | "issuer.activated" | "credential_configuration.created" | "credential_configuration.version_activated" | "verification_policy.suspended" | "verification_policy.reactivated" | "verification_policy.version_activated" | "trust_source.refresh_failed" | "trust_source.expired" | "verifier_certificate.expiring" | "registration_certificate.expiring";
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementCollectionOfWebhookDelivery"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    WebhookDeliveries_Redeliver: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The webhook delivery's id. */
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The attempt is scheduled; the body shows the delivery. */
            202: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementResourceOfWebhookDelivery"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    IssuanceTransactions_List: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                status?: "pending" | "completed" | "cancelled" | "expired";
                credentialConfiguration?: string;
                issuerId?: string;
                createdFrom?: string;
                createdTo?: string;
                externalSubjectReference?: string;
                callbackReference?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiCollectionOfIssuanceTransaction"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    IssuanceTransactions_Create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Identifier of the credential configuration to issue.
                     * @example membership-card
                     */
                    credentialConfiguration: string;
                    /**
                     * @description Issuer to issue with. Taken from the key when it is bound to an issuer; required otherwise for Credentials_Issue.
                     * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                     */
                    issuerId?: string | null;
                    /**
                     * @description Claim values, validated against the configuration's declared claims.
                     * @example {
                     *       "given_name": "Erika",
                     *       "family_name": "Mustermann",
                     *       "birthdate": "1984-01-26"
                     *     }
                     */
                    claims?: {
                        [key: string]: unknown;
                    } | null;
                    /**
                     * @description Caller's reference, returned in events.
                     * @example order-8812
                     */
                    callbackReference?: string | null;
                    /**
                     * @description Caller's id for the person; returned in events.
                     * @example crm-4411
                     */
                    externalSubjectReference?: string | null;
                    delivery?: components["schemas"]["IssuanceDelivery"];
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfIssuanceTransactionResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    IssuanceTransactions_Get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description Issuance transaction id. */
                transactionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfIssuanceTransactionResponse"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    IssuanceTransactions_Cancel: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description Issuance transaction id. */
                transactionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfIssuanceTransactionResponse"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    IssuanceTransactions_SupplyClaims: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description Issuance transaction id. */
                transactionId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The claim values, validated against the version of the configuration the transaction was created with.
                     * @example {
                     *       "given_name": "Erika",
                     *       "family_name": "Mustermann"
                     *     }
                     */
                    claims: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfIssuanceTransactionResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Authorizations_Complete: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The `interaction` query parameter the authorization endpoint sent the person to the issuer's authorization page with.
                     * @example Zr4V0m7Q9Qm3cS8nT1xY2a6Lk0pBfW5uE7hJd3gN4sA
                     */
                    interaction: string;
                    /**
                     * @description `approve`: the person signed in as the transaction's subject and consented; the wallet gets an authorization code. `deny`: the wallet gets `access_denied`, and the offer stays pending.
                     * @example approve
                     * @enum {string}
                     */
                    decision: "approve" | "deny";
                    /**
                     * @description The issuance transaction that answers the request. An offer's request has its own (the `transaction_id` the page was opened with; if sent, it must be that one). A wallet-initiated request (the page was opened with `credential_configuration_id` instead) needs one to be approved: a pending transaction of the same issuer and configuration, created with `delivery.grant: "authorizationCode"` for the person who signed in.
                     * @example itx_01j9z3k8m2x4v6b8n0p2q4s6t8
                     */
                    transactionId?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfCompletedAuthorization"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Credentials_Issue: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
                /** @description Replays the original result for a repeated request with the same payload for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Identifier of the credential configuration to issue.
                     * @example membership-card
                     */
                    credentialConfiguration: string;
                    /**
                     * @description Issuer to issue with. Taken from the key when it is bound to an issuer; required otherwise for Credentials_Issue.
                     * @example iss_01jd5x6c3v8w9y0z1a2b3c4d5e
                     */
                    issuerId?: string | null;
                    /**
                     * @description Claim values, validated against the configuration's declared claims.
                     * @example {
                     *       "given_name": "Erika",
                     *       "family_name": "Mustermann",
                     *       "birthdate": "1984-01-26"
                     *     }
                     */
                    claims?: {
                        [key: string]: unknown;
                    } | null;
                    /**
                     * @description Caller's reference, returned in events.
                     * @example order-8812
                     */
                    callbackReference?: string | null;
                    /**
                     * @description Caller's id for the person; returned in events.
                     * @example crm-4411
                     */
                    externalSubjectReference?: string | null;
                    delivery?: components["schemas"]["IssuanceDelivery"];
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotent-Replayed": components["headers"]["IdempotentReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfIssuanceTransactionResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Credentials_Revoke: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description Credential id (from the completed issuance transaction). */
                credentialId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfCredentialStatusResponse"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Credentials_List: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                status?: "active" | "suspended" | "revoked" | "expired";
                credentialConfiguration?: string;
                issuerId?: string;
                transactionId?: string;
                externalSubjectReference?: string;
                issuedFrom?: string;
                issuedTo?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiCollectionOfCredential"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Credentials_Get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description Credential id (from the completed issuance transaction, or Credentials_List). */
                credentialId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfCredential"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Credentials_Suspend: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description Credential id (from the completed issuance transaction, or Credentials_List). */
                credentialId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfCredential"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Credentials_Reinstate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description Credential id (from the completed issuance transaction, or Credentials_List). */
                credentialId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfCredential"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    AuditEvents_List: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                actorId?: string;
                operation?: string;
                targetId?: string;
                outcome?: "succeeded" | "refused" | "failed";
                from?: string;
                to?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManagementCollectionOfAuditEvent"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    AuditEvents_Export: {
        parameters: {
            query?: {
                actorId?: string;
                operation?: string;
                targetId?: string;
                outcome?: "succeeded" | "refused" | "failed";
                from?: string;
                to?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One audit event per line (`application/x-ndjson`), oldest first. */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": components["schemas"]["AuditEvent"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Activity_Get: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
                interval?: "day";
                groupBy?: "issuer" | "policy";
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiEnvelopeOfActivity"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    "X-Correlation-Id": components["headers"]["CorrelationId"];
                    "X-Request-Id": components["headers"]["ProductRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Tenants_List: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CollectionOfTenant"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Tenants_Create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Name shown to operators.
                     * @example Acme Bank
                     */
                    name: string;
                    /**
                     * Format: email
                     * @description When given, also creates the tenant's first console administrator (Tenants_CreateAdmin).
                     * @example admin@acme.example
                     */
                    adminEmail?: string;
                };
            };
        };
        responses: {
            /** @description The tenant was created. */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /**
                             * @description The tenant's id.
                             * @example ten_01jd5x6c3v8w9y0z1a2b3c4d5e
                             */
                            id: string;
                            /**
                             * @description Name shown to operators.
                             * @example Acme Bank
                             */
                            name: string;
                            /**
                             * @description suspended: its API keys and staff are refused (403 TenantSuspended).
                             * @enum {string}
                             */
                            status: "active" | "suspended";
                            /**
                             * @description When it was suspended (ISO 8601); null while active.
                             * @example null
                             */
                            suspendedAt: string | null;
                            /**
                             * @description Creation time (ISO 8601).
                             * @example 2026-08-30T12:00:00.000Z
                             */
                            createdAt: string;
                            /** @description The first administrator when `adminEmail` was given; null otherwise. */
                            admin: components["schemas"]["TenantAdmin"] | null;
                        };
                    };
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Tenants_Get: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The tenant's id. */
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Tenant"];
                    };
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Tenants_Suspend: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The tenant's id. */
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Tenant"];
                    };
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Tenants_Reactivate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The tenant's id. */
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Tenant"];
                    };
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Tenants_CreateAdmin: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The tenant's id. */
                tenantId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: email
                     * @description Sign-in e-mail of the administrator.
                     * @example admin@acme.example
                     */
                    email: string;
                };
            };
        };
        responses: {
            /** @description The administrator was created. */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["TenantAdmin"];
                    };
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    StaffMembers_List: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CollectionOfStaffMember"];
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    StaffMembers_Create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: email
                     * @description Sign-in e-mail of the new member.
                     * @example ops@acme.example
                     */
                    email: string;
                    /**
                     * @description admin: everything, the audit trail and the team included; operator: everything but webhooks, the audit trail and the team; viewer: reads.
                     * @example operator
                     * @enum {string}
                     */
                    role: "admin" | "operator" | "viewer";
                };
            };
        };
        responses: {
            /** @description The member was added. */
            201: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /**
                             * @description The console user's id.
                             * @example usr_01jd5x6c3v8w9y0z1a2b3c4d5e
                             */
                            id: string;
                            /**
                             * @description Sign-in e-mail (lower case).
                             * @example ops@acme.example
                             */
                            email: string;
                            /**
                             * @description admin: everything, the audit trail and the team included; operator: everything but webhooks, the audit trail and the team; viewer: reads.
                             * @example operator
                             * @enum {string}
                             */
                            role: "admin" | "operator" | "viewer";
                            /** @description This tenant is the user's home: its administrators reset their password. false: a member whose home is another tenant, which manages their password. */
                            home: boolean;
                            /** @description The user is a platform operator (docs/api/tenants.md): they hold platform.manage besides the role, and only a caller holding it too may change them. */
                            platformOperator: boolean;
                            /**
                             * @description When they joined this tenant (ISO 8601).
                             * @example 2026-08-30T12:00:00.000Z
                             */
                            createdAt: string;
                            /** @description A new console user's password, shown once; null when the e-mail was a console user of another tenant already, who joins this one and signs in as before. */
                            temporaryPassword: string | null;
                        };
                    };
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    StaffMembers_Remove: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The console user's id. */
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The member was removed; the body shows them as they were. */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["StaffMember"];
                    };
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    StaffMembers_UpdateRole: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The console user's id. */
                userId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description admin: everything, the audit trail and the team included; operator: everything but webhooks, the audit trail and the team; viewer: reads.
                     * @example operator
                     * @enum {string}
                     */
                    role: "admin" | "operator" | "viewer";
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["StaffMember"];
                    };
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    StaffMembers_ResetPassword: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The console user's id. */
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /**
                             * @description The console user's id.
                             * @example usr_01jd5x6c3v8w9y0z1a2b3c4d5e
                             */
                            id: string;
                            /**
                             * @description Sign-in e-mail (lower case).
                             * @example ops@acme.example
                             */
                            email: string;
                            /**
                             * @description admin: everything, the audit trail and the team included; operator: everything but webhooks, the audit trail and the team; viewer: reads.
                             * @example operator
                             * @enum {string}
                             */
                            role: "admin" | "operator" | "viewer";
                            /** @description This tenant is the user's home: its administrators reset their password. false: a member whose home is another tenant, which manages their password. */
                            home: boolean;
                            /** @description The user is a platform operator (docs/api/tenants.md): they hold platform.manage besides the role, and only a caller holding it too may change them. */
                            platformOperator: boolean;
                            /**
                             * @description When they joined this tenant (ISO 8601).
                             * @example 2026-08-30T12:00:00.000Z
                             */
                            createdAt: string;
                            /** @description The console password, shown once: hand it over out of band. It is stored only as an argon2id hash; no operation returns it again. */
                            temporaryPassword: string;
                        };
                    };
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description The request conflicts with the resource state, or an idempotency key was reused with a different payload. */
            409: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    StaffMembers_SignOut: {
        parameters: {
            query?: never;
            header?: {
                /** @description Caller's own request id; echoed back and logged, never used for anything else. */
                "x-ms-client-request-id"?: components["parameters"]["ClientRequestId"];
            };
            path: {
                /** @description The console user's id. */
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /**
                             * @description The console user's id.
                             * @example usr_01jd5x6c3v8w9y0z1a2b3c4d5e
                             */
                            id: string;
                            /**
                             * @description How many console sessions of the user were ended.
                             * @example 2
                             */
                            sessionsRevoked: number;
                        };
                    };
                };
            };
            /** @description The request was not valid. */
            400: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authentication failed: the API key is missing, malformed, revoked or expired. */
            401: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Authenticated, but the key does not carry the required scope. */
            403: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Not visible to this caller. A resource in another tenant or environment reports as not found. */
            404: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled. Retry after the number of seconds in Retry-After. */
            429: {
                headers: {
                    "x-ms-request-id": components["headers"]["RequestId"];
                    "x-ms-client-request-id": components["headers"]["ClientRequestId"];
                    /** @description Seconds to wait. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    Webhook_IssuanceTransactionCreated: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["IssuanceTransactionCreatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_IssuanceTransactionCompleted: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["IssuanceTransactionCompletedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_IssuanceTransactionReissued: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["IssuanceTransactionReissuedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_IssuanceTransactionDeferred: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["IssuanceTransactionDeferredEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_IssuanceTransactionCancelled: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["IssuanceTransactionCancelledEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_IssuanceTransactionExpired: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["IssuanceTransactionExpiredEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_CredentialRevoked: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CredentialRevokedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_CredentialSuspended: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CredentialSuspendedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_CredentialReinstated: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CredentialReinstatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_CredentialAccepted: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CredentialAcceptedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_CredentialFailed: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CredentialFailedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_CredentialDeleted: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CredentialDeletedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_VerificationSessionCreated: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VerificationSessionCreatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_VerificationSessionVerified: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VerificationSessionVerifiedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_VerificationSessionRejected: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VerificationSessionRejectedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_VerificationSessionCancelled: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VerificationSessionCancelledEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_VerificationSessionExpired: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VerificationSessionExpiredEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_IssuerActivated: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["IssuerActivatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_CredentialConfigurationCreated: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CredentialConfigurationCreatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_CredentialConfigurationVersionActivated: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CredentialConfigurationVersionActivatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_VerificationPolicySuspended: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VerificationPolicySuspendedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_VerificationPolicyReactivated: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VerificationPolicyReactivatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_VerificationPolicyVersionActivated: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VerificationPolicyVersionActivatedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_TrustSourceRefreshFailed: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TrustSourceRefreshFailedEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_TrustSourceExpired: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TrustSourceExpiredEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_VerifierCertificateExpiring: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VerifierCertificateExpiringEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    Webhook_RegistrationCertificateExpiring: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event id; the same on every retry.
                 * @example evt_01jd5x6c3v8w9y0z1a2b3c4d5e
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds when this attempt was signed.
                 * @example 1788091200
                 */
                "webhook-timestamp": string;
                /**
                 * @description Space-separated `v1,<base64 HMAC-SHA256>` signatures: the current secret's, then one per replaced secret still in its rotation overlap (at most 6 in all).
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RegistrationCertificateExpiringEvent"];
            };
        };
        responses: {
            /** @description Gone: the subscription is disabled and receives nothing more. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Any other status (or none within the timeout, 15 s by default) is retried with backoff. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}

/** The Management plane's `api-version` this client is generated for (openapi.json's info.version). */
export const API_VERSION = "2026-08-30";
