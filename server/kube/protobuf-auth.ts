// authorization/v1 and authentication/v1 (k8s.io/api): the reviews `kubectl auth` sends.
import { str, bool, strs, msg, type Schema } from './protobuf-fields';
import { objectMeta } from './protobuf-meta';

export const selfSubjectAccessReview: Schema = [
  msg(1, 'metadata', objectMeta),
  msg(2, 'spec', [
    msg(1, 'resourceAttributes', [str(1, 'namespace'), str(2, 'verb'), str(3, 'group'), str(4, 'version'), str(5, 'resource'), str(6, 'subresource'), str(7, 'name')]),
    msg(2, 'nonResourceAttributes', [str(1, 'path'), str(2, 'verb')]),
  ]),
  msg(3, 'status', [bool(1, 'allowed', true), str(2, 'reason'), str(3, 'evaluationError'), bool(4, 'denied')]),
];

export const selfSubjectReview: Schema = [
  msg(1, 'metadata', objectMeta),
  msg(2, 'status', [msg(1, 'userInfo', [str(1, 'username'), str(2, 'uid'), strs(3, 'groups')])]),
];
