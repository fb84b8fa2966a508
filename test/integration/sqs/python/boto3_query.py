"""Every SQS action relayq supports, through botocore speaking the query protocol.

Run by test/integration/sqs/boto3.test.ts with Debian's python3-boto3 (botocore
1.29: the query protocol, XML answers). Prints one JSON object: what each call
answered (or the error botocore parsed), for the test to check.
Environment: ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY.
"""
import base64
import json
import os

import boto3
import botocore
from botocore.config import Config
from botocore.exceptions import ClientError

client = boto3.client(
    'sqs',
    endpoint_url=os.environ['ENDPOINT'],
    region_name='eu-west-3',
    config=Config(retries={'max_attempts': 0}),
)
# relayq also serves the SQS endpoint under /sqs
under_sqs = boto3.client(
    'sqs',
    endpoint_url=os.environ['ENDPOINT'] + '/sqs',
    region_name='eu-west-3',
    config=Config(retries={'max_attempts': 0}),
)
out = {'botocore': botocore.__version__, 'protocol': client.meta.service_model.protocol}


def failure(call):
    """The error botocore parsed from relayq's XML answer."""
    try:
        call()
    except ClientError as e:
        return {
            'code': e.response['Error']['Code'],
            'type': e.response['Error'].get('Type'),
            'message': e.response['Error']['Message'],
            'status': e.response['ResponseMetadata']['HTTPStatusCode'],
            'exception': type(e).__name__,
        }
    return None


def plain(value):
    """Bytes (Binary attribute values) as base64, to print as JSON."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if k != 'ResponseMetadata'}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


BODY = 'tab\there, CR\rLF\nCRLF\r\n <tag> & "quotes" \'apos\' ]]> ünïcode 🎉'

queue = client.create_queue(
    QueueName='py-orders',
    Attributes={'VisibilityTimeout': '40', 'SqsManagedSseEnabled': 'true', 'MaximumMessageSize': '2048'},
    tags={'team': 'a&b <c>', 'empty': ''},
)['QueueUrl']
out['create'] = queue
out['createAgain'] = client.create_queue(QueueName='py-orders', Attributes={'VisibilityTimeout': '40'})[
    'QueueUrl'
]
dlq = under_sqs.create_queue(QueueName='py-dlq')['QueueUrl']
out['getUrl'] = client.get_queue_url(QueueName='py-orders')['QueueUrl']
out['list'] = client.list_queues(QueueNamePrefix='py-')['QueueUrls']
out['listPage'] = plain(client.list_queues(QueueNamePrefix='py-', MaxResults=1))
out['listNone'] = plain(client.list_queues(QueueNamePrefix='none-'))
client.set_queue_attributes(
    QueueUrl=queue,
    Attributes={
        'RedrivePolicy': json.dumps({'deadLetterTargetArn': 'arn:aws:sqs:eu-west-3:%s:py-dlq' % queue.split('/')[-2], 'maxReceiveCount': 5}),
        'KmsMasterKeyId': 'alias/aws/sqs',
        'KmsDataKeyReusePeriodSeconds': '600',
    },
)
out['attributes'] = client.get_queue_attributes(QueueUrl=queue, AttributeNames=['ALL'])['Attributes']
out['someAttributes'] = plain(
    client.get_queue_attributes(QueueUrl=queue, AttributeNames=['MaximumMessageSize', 'KmsMasterKeyId'])
)
out['sources'] = client.list_dead_letter_source_queues(QueueUrl=dlq)['queueUrls']

out['send'] = plain(
    client.send_message(
        QueueUrl=queue,
        MessageBody=BODY,
        MessageAttributes={
            'trace.id': {'DataType': 'String', 'StringValue': 'x<y&z\r'},
            'trace.n': {'DataType': 'Number', 'StringValue': '-1.5e3'},
            'blob': {'DataType': 'Binary', 'BinaryValue': b'\x00\x01\xfe\xff'},
        },
    )
)
out['tooLong'] = failure(lambda: client.send_message(QueueUrl=queue, MessageBody='x' * 2049))
out['received'] = plain(
    client.receive_message(
        QueueUrl=queue,
        AttributeNames=['All'],
        MessageAttributeNames=['trace.*', 'blob'],
        MaxNumberOfMessages=10,
        VisibilityTimeout=30,
        WaitTimeSeconds=1,
    )
)
handle = out['received']['Messages'][0]['ReceiptHandle']
out['changeVisibility'] = plain(client.change_message_visibility(QueueUrl=queue, ReceiptHandle=handle, VisibilityTimeout=60))
out['deleteMessage'] = plain(client.delete_message(QueueUrl=queue, ReceiptHandle=handle))
out['receiveEmpty'] = plain(client.receive_message(QueueUrl=queue, WaitTimeSeconds=0))

out['sendBatch'] = plain(
    client.send_message_batch(
        QueueUrl=queue,
        Entries=[
            {'Id': 'a', 'MessageBody': 'one', 'DelaySeconds': 0},
            {'Id': 'b', 'MessageBody': 'two', 'MessageAttributes': {'k': {'DataType': 'String', 'StringValue': 'v'}}},
            {'Id': 'c', 'MessageBody': 'three', 'DelaySeconds': 901},
        ],
    )
)
batch = client.receive_message(QueueUrl=queue, MaxNumberOfMessages=10, WaitTimeSeconds=1)['Messages']
out['batchReceived'] = sorted(m['Body'] for m in batch)
out['changeBatch'] = plain(
    client.change_message_visibility_batch(
        QueueUrl=queue,
        Entries=[
            {'Id': 'x', 'ReceiptHandle': batch[0]['ReceiptHandle'], 'VisibilityTimeout': 120},
            {'Id': 'y', 'ReceiptHandle': 'not-a-handle', 'VisibilityTimeout': 120},
        ],
    )
)
out['deleteBatch'] = plain(
    client.delete_message_batch(
        QueueUrl=queue, Entries=[{'Id': 'm%d' % i, 'ReceiptHandle': m['ReceiptHandle']} for i, m in enumerate(batch)]
    )
)
out['emptyBatch'] = failure(lambda: client.delete_message_batch(QueueUrl=queue, Entries=[]))

client.tag_queue(QueueUrl=queue, Tags={'env': 'test', 'team': 'b'})
client.untag_queue(QueueUrl=queue, TagKeys=['empty'])
out['tags'] = client.list_queue_tags(QueueUrl=queue)['Tags']
out['tooManyTags'] = failure(
    lambda: client.tag_queue(QueueUrl=queue, Tags={'t%d' % i: 'v' for i in range(49)})
)

client.send_message(QueueUrl=queue, MessageBody='to purge')
client.purge_queue(QueueUrl=queue)
out['afterPurge'] = client.get_queue_attributes(QueueUrl=queue, AttributeNames=['ApproximateNumberOfMessages'])[
    'Attributes'
]
client.delete_queue(QueueUrl=queue)
missing = failure(lambda: client.get_queue_url(QueueName='py-orders'))
out['deleted'] = missing
try:
    client.get_queue_attributes(QueueUrl=queue)
except client.exceptions.QueueDoesNotExist as e:
    out['modeledException'] = type(e).__name__
out['badAttribute'] = failure(lambda: client.set_queue_attributes(QueueUrl=dlq, Attributes={'MaximumMessageSize': '100'}))
out['unsupported'] = failure(
    lambda: client.add_permission(QueueUrl=dlq, Label='l', AWSAccountIds=['1'], Actions=['SendMessage'])
)
print(json.dumps(out))
