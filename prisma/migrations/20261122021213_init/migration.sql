-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "Tenant" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Tenant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "scopes" TEXT[],
    "issuerId" TEXT,
    "expiresAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),
    "lastUsedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StaffUser" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StaffUser_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StaffSession" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "csrfToken" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StaffSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IdempotencyRecord" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "responseStatus" INTEGER,
    "responseBody" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IdempotencyRecord_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RateLimitCounter" (
    "key" TEXT NOT NULL,
    "points" INTEGER NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RateLimitCounter_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "Organisation" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "displayName" TEXT NOT NULL,
    "legalName" TEXT,
    "country" TEXT,
    "identifiers" JSONB NOT NULL DEFAULT '[]',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Organisation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Issuer" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "organisationId" TEXT NOT NULL,
    "displayName" TEXT NOT NULL,
    "description" TEXT,
    "logoUri" TEXT,
    "display" JSONB NOT NULL DEFAULT '[]',
    "status" TEXT NOT NULL,
    "signingKid" TEXT NOT NULL,
    "publicJwk" JSONB NOT NULL,
    "privateKeyCipher" TEXT NOT NULL,
    "activatedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Issuer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CredentialConfiguration" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "issuerId" TEXT NOT NULL,
    "identifier" TEXT NOT NULL,
    "displayName" TEXT NOT NULL,
    "schemaId" TEXT NOT NULL,
    "credentialType" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "signingAlgorithm" TEXT NOT NULL,
    "defaultLifetimeDays" INTEGER NOT NULL,
    "holderBindingRequired" BOOLEAN NOT NULL,
    "statusEnabled" BOOLEAN NOT NULL,
    "activeVersion" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CredentialConfiguration_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CredentialConfigurationVersion" (
    "id" TEXT NOT NULL,
    "configurationId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "claims" JSONB NOT NULL,
    "reason" TEXT,
    "activatedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CredentialConfigurationVersion_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IssuerConfigurationGrant" (
    "issuerId" TEXT NOT NULL,
    "configurationId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "IssuerConfigurationGrant_pkey" PRIMARY KEY ("issuerId","configurationId")
);

-- CreateTable
CREATE TABLE "StatusList" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "issuerId" TEXT NOT NULL,
    "bits" INTEGER NOT NULL,
    "size" INTEGER NOT NULL,
    "allocated" INTEGER NOT NULL DEFAULT 0,
    "data" BYTEA NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,
    "full" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "StatusList_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IssuanceTransaction" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "issuerId" TEXT NOT NULL,
    "configurationId" TEXT NOT NULL,
    "configurationIdentifier" TEXT NOT NULL,
    "configurationVersion" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "claimsCipher" TEXT,
    "callbackReference" TEXT,
    "externalSubjectReference" TEXT,
    "offerBy" TEXT NOT NULL,
    "preAuthorizedCodeHash" TEXT,
    "txCodeHash" TEXT,
    "txCodeSpec" JSONB,
    "txCodeFailures" INTEGER NOT NULL DEFAULT 0,
    "codeRedeemedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "completedAt" TIMESTAMP(3),
    "cancelledAt" TIMESTAMP(3),
    "expiryEventAt" TIMESTAMP(3),
    "credentialId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IssuanceTransaction_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AccessToken" (
    "tokenHash" TEXT NOT NULL,
    "transactionId" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AccessToken_pkey" PRIMARY KEY ("tokenHash")
);

-- CreateTable
CREATE TABLE "WalletNonce" (
    "valueHash" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WalletNonce_pkey" PRIMARY KEY ("valueHash")
);

-- CreateTable
CREATE TABLE "Credential" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "issuerId" TEXT NOT NULL,
    "configurationId" TEXT NOT NULL,
    "transactionId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "statusListId" TEXT,
    "statusIndex" INTEGER,
    "digest" TEXT NOT NULL,
    "holderKeyThumb" TEXT,
    "notificationId" TEXT,
    "notificationEvent" TEXT,
    "notifiedAt" TIMESTAMP(3),
    "issuedAt" TIMESTAMP(3) NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "revokedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Credential_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "VerifierCertificate" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "chainPem" TEXT NOT NULL,
    "privateKeyCipher" TEXT NOT NULL,
    "dnsName" TEXT NOT NULL,
    "uploaded" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "VerifierCertificate_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "VerificationPolicy" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "identifier" TEXT NOT NULL,
    "displayName" TEXT NOT NULL,
    "purpose" TEXT,
    "status" TEXT NOT NULL,
    "rules" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "VerificationPolicy_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "VerificationSession" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "policyId" TEXT NOT NULL,
    "policyIdentifier" TEXT NOT NULL,
    "purpose" TEXT,
    "status" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "responseMode" TEXT NOT NULL,
    "encryptionKeyCipher" TEXT,
    "walletNonce" TEXT,
    "responseCodeHash" TEXT,
    "result" JSONB,
    "decidedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "expiryEventAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "VerificationSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookSubscription" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "description" TEXT,
    "status" TEXT NOT NULL,
    "secretCipher" TEXT NOT NULL,
    "previousSecretCipher" TEXT,
    "previousSecretExpiresAt" TIMESTAMP(3),
    "disabledReason" TEXT,
    "deletedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WebhookSubscription_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OutboxEvent" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "occurredAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dispatchedAt" TIMESTAMP(3),

    CONSTRAINT "OutboxEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastAttemptAt" TIMESTAMP(3),
    "lastResponseStatus" INTEGER,
    "lastError" TEXT,
    "nextAttemptAt" TIMESTAMP(3),
    "lockedUntil" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookAttempt" (
    "id" TEXT NOT NULL,
    "deliveryId" TEXT NOT NULL,
    "attemptNumber" INTEGER NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "durationMs" INTEGER NOT NULL,
    "responseStatus" INTEGER,
    "error" TEXT,

    CONSTRAINT "WebhookAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_prefix_key" ON "ApiKey"("prefix");

-- CreateIndex
CREATE INDEX "ApiKey_tenantId_environment_idx" ON "ApiKey"("tenantId", "environment");

-- CreateIndex
CREATE UNIQUE INDEX "StaffUser_email_key" ON "StaffUser"("email");

-- CreateIndex
CREATE UNIQUE INDEX "StaffSession_tokenHash_key" ON "StaffSession"("tokenHash");

-- CreateIndex
CREATE INDEX "StaffSession_userId_idx" ON "StaffSession"("userId");

-- CreateIndex
CREATE INDEX "IdempotencyRecord_expiresAt_idx" ON "IdempotencyRecord"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "IdempotencyRecord_tenantId_environment_operation_key_key" ON "IdempotencyRecord"("tenantId", "environment", "operation", "key");

-- CreateIndex
CREATE UNIQUE INDEX "Organisation_tenantId_environment_reference_key" ON "Organisation"("tenantId", "environment", "reference");

-- CreateIndex
CREATE INDEX "Issuer_tenantId_environment_id_idx" ON "Issuer"("tenantId", "environment", "id");

-- CreateIndex
CREATE INDEX "CredentialConfiguration_issuerId_idx" ON "CredentialConfiguration"("issuerId");

-- CreateIndex
CREATE UNIQUE INDEX "CredentialConfiguration_tenantId_environment_identifier_key" ON "CredentialConfiguration"("tenantId", "environment", "identifier");

-- CreateIndex
CREATE UNIQUE INDEX "CredentialConfigurationVersion_configurationId_version_key" ON "CredentialConfigurationVersion"("configurationId", "version");

-- CreateIndex
CREATE INDEX "StatusList_issuerId_full_idx" ON "StatusList"("issuerId", "full");

-- CreateIndex
CREATE UNIQUE INDEX "IssuanceTransaction_preAuthorizedCodeHash_key" ON "IssuanceTransaction"("preAuthorizedCodeHash");

-- CreateIndex
CREATE INDEX "IssuanceTransaction_tenantId_environment_id_idx" ON "IssuanceTransaction"("tenantId", "environment", "id");

-- CreateIndex
CREATE INDEX "IssuanceTransaction_status_expiresAt_idx" ON "IssuanceTransaction"("status", "expiresAt");

-- CreateIndex
CREATE INDEX "AccessToken_transactionId_idx" ON "AccessToken"("transactionId");

-- CreateIndex
CREATE INDEX "WalletNonce_expiresAt_idx" ON "WalletNonce"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "Credential_notificationId_key" ON "Credential"("notificationId");

-- CreateIndex
CREATE INDEX "Credential_tenantId_environment_id_idx" ON "Credential"("tenantId", "environment", "id");

-- CreateIndex
CREATE INDEX "Credential_transactionId_idx" ON "Credential"("transactionId");

-- CreateIndex
CREATE UNIQUE INDEX "Credential_statusListId_statusIndex_key" ON "Credential"("statusListId", "statusIndex");

-- CreateIndex
CREATE UNIQUE INDEX "VerifierCertificate_tenantId_environment_key" ON "VerifierCertificate"("tenantId", "environment");

-- CreateIndex
CREATE UNIQUE INDEX "VerificationPolicy_tenantId_environment_identifier_key" ON "VerificationPolicy"("tenantId", "environment", "identifier");

-- CreateIndex
CREATE UNIQUE INDEX "VerificationSession_state_key" ON "VerificationSession"("state");

-- CreateIndex
CREATE INDEX "VerificationSession_tenantId_environment_id_idx" ON "VerificationSession"("tenantId", "environment", "id");

-- CreateIndex
CREATE INDEX "VerificationSession_status_expiresAt_idx" ON "VerificationSession"("status", "expiresAt");

-- CreateIndex
CREATE INDEX "WebhookSubscription_tenantId_environment_id_idx" ON "WebhookSubscription"("tenantId", "environment", "id");

-- CreateIndex
CREATE INDEX "OutboxEvent_dispatchedAt_occurredAt_idx" ON "OutboxEvent"("dispatchedAt", "occurredAt");

-- CreateIndex
CREATE INDEX "OutboxEvent_tenantId_environment_occurredAt_idx" ON "OutboxEvent"("tenantId", "environment", "occurredAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_tenantId_environment_id_idx" ON "WebhookDelivery"("tenantId", "environment", "id");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_subscriptionId_eventId_key" ON "WebhookDelivery"("subscriptionId", "eventId");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookAttempt_deliveryId_attemptNumber_key" ON "WebhookAttempt"("deliveryId", "attemptNumber");
