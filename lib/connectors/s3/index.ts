// S3 (@aws-sdk/client-s3, loaded on first use): the s3:// checkpoint scheme.
import './s3-checkpoint-file-manager';
