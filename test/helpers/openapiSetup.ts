/** Fails a test whose app answered something the OpenAPI document does not describe. */
import { takeProblems } from './openapiCheck';

afterEach(() => {
  const problems = takeProblems();
  if (problems.length > 0) {
    throw new Error(`responses that do not match openapi.json:\n${problems.join('\n')}`);
  }
});
