/** The policy's working memory as a port: the types live with the policy engine in domain/ (it reasons over them). */
export * from '../domain/policy/facts';
