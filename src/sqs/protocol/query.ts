/**
 * SQS's query protocol (every SDK before late 2023: botocore before 1.34.9x, the
 * AWS SDK for Java 1.x, kombu's own client): `Action=<Action>&Version=2012-11-05`
 * and the parameters form-encoded in a POST body (or a GET's query string),
 * answers and errors as XML.
 */
import { actionNamed } from '../actions';
import { SqsError } from '../errors';
import { queryInput, type QueryParams } from './queryParams';
import { writeAnswer, type ErrorWriter, type ProtocolRequest } from './request';
import { xmlError, xmlResponse } from './xml';

const XML_CONTENT_TYPE = 'text/xml';

export const queryError: ErrorWriter = (res, error, requestId) =>
  writeAnswer(res, error.status, XML_CONTENT_TYPE, xmlError(error, requestId), requestId, {
    ...error.headers,
  });

export function queryRequest(params: QueryParams): ProtocolRequest {
  const action = params.get('Action') ?? '';
  return {
    protocol: 'query',
    action,
    handler() {
      if (action === '') {
        throw new SqsError(
          'MissingAction',
          'The request must contain the parameter Action (Action=<Action>&Version=2012-11-05), or send X-Amz-Target: AmazonSQS.<Action> with the JSON protocol.',
        );
      }
      return actionNamed(action, `Action=${action}`);
    },
    input: () => queryInput(action, params),
    answer(res, output, requestId) {
      writeAnswer(res, 200, XML_CONTENT_TYPE, xmlResponse(action, output, requestId), requestId);
    },
  };
}
