/*
 * aws/awscreds.h: AWS credentials and region the way the AWS SDKs
 * find them. Credentials, first that applies:
 *  1. environment: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 *     AWS_SESSION_TOKEN;
 *  2. the shared credentials and config files (AWS_SHARED_CREDENTIALS_FILE,
 *     AWS_CONFIG_FILE, default ~/.aws/credentials and ~/.aws/config),
 *     profile AWS_PROFILE or "default": static keys, or role_arn +
 *     web_identity_token_file;
 *  3. web identity: AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN
 *     (AWS_ROLE_SESSION_NAME) through STS AssumeRoleWithWebIdentity (IRSA);
 *  4. container credentials: AWS_CONTAINER_CREDENTIALS_FULL_URI with
 *     AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE or _TOKEN (EKS Pod Identity),
 *     or AWS_CONTAINER_CREDENTIALS_RELATIVE_URI (ECS);
 *  5. IMDSv2 (AWS_EC2_METADATA_SERVICE_ENDPOINT, default
 *     http://169.254.169.254; AWS_EC2_METADATA_DISABLED=true skips it).
 * Region: the --region given, AWS_REGION, AWS_DEFAULT_REGION, the
 * profile's region, then IMDS placement/region.
 */
#ifndef AWS_AWSCREDS_H
#define AWS_AWSCREDS_H

#include <stddef.h>

#include "aws/aws.h"
#include "util/err.h"

/* awscreds_load: fill a->creds and a->region (region_flag may be NULL).
 * ERR_AUTH when no source has credentials (the message lists what was
 * tried); ERR_INVALID for a broken profile or token file; ERR_HTTP when an
 * endpoint (STS, container, IMDS) failed. Secrets never go to messages. */
int awscreds_load(struct aws *a, const char *region_flag, struct err *err);

/* awscreds_ini_get: value of key in [section] of an INI text ("profile x"
 * or "x"); fresh memory or NULL. Pure, for the unit tests. */
char *awscreds_ini_get(const char *text, const char *section,
		       const char *key);
/* awscreds_ini_has: the text has that section */
int awscreds_ini_has(const char *text, const char *section);

#endif
