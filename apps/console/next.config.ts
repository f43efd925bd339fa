import type { NextConfig } from "next";

const config: NextConfig = {
  transpilePackages: ["@cred/core", "@cred/db", "@cred/oid4vc"],
  poweredByHeader: false,
};

export default config;
