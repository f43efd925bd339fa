export { assertTrustSourcesExist } from "./assert-trust-sources-exist";
export { notifyExpiredTrustSources } from "./notify-expired-trust-sources";
export { refreshDueTrustSources } from "./refresh-trust-source";
export { trustSourceAnchors, trustSourceAnchorsIn, trustSourceListOf } from "./trust-source-anchors";
export { trustSourceRepository } from "./trust-source-repository";
