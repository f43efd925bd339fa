export { refreshDueTrustSources } from "./refresh-trust-source";
export { trustSourceAnchors, trustSourceListOf } from "./trust-source-anchors";
export { trustSourceRepository } from "./trust-source-repository";
