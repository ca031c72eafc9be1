"""s35 secrets red team (round 6): what rounds 1-5 left, in the six session shapes of tests/fx_redteam.py (a
Claude Code tool_result with its toolUseResult sidecar, a Codex function_call_output, a file-history backup, an
SQLite TEXT cell, a `git diff` adding the text, a user's prose), the redacted text asserted byte for byte:

- an `expect` script's answer to a password prompt (`expect "*assword*"` then `send "pw\\r"`, the one-line
  `{ send -- "pw\\r" }` form) and pexpect's `child.expect('Password:')` then `child.sendline('pw')`
  (expect-send-password);
- key/value stores written from the shell: `consul kv put secret/db/password pw`, `etcdctl put /app/password pw`
  (cli-tool-password-flag), `vault kv put secret/app password=pw` (password-assignment-unquoted, already taken);
- an OpenVPN auth-user-pass file printed by `cat auth.txt` (its second line; the user line stays) and the inline
  `<auth-user-pass>` block of a profile (openvpn-auth-user-pass);
- LDAP binds in code: python-ldap `simple_bind_s('cn=..', 'pw')`, ldap3 `Connection(server, 'cn=..', 'pw')`
  positional (the keyword form was taken), PHP `ldap_bind`, ldapjs `client.bind`, Go `l.Bind`
  (ldap-bind-call-password);
- Neo4j `SET PASSWORD FROM 'old' TO 'new'`: the old one too unless it is the default `neo4j`
  (neo4j-set-password-old);
- tools' command lines: `db2 connect to DB user u using pw` (also at the `db2 =>` prompt), osql / mssql-cli -P,
  cqlsh / hdbsql / evil-winrm -p, vsql -w, Invoke-Sqlcmd -Password, databricks secrets put-secret --string-value,
  ansible-vault encrypt_string 'pw' (cli-tool-password-flag), rabbitmqctl change_password (cli-tool-password),
  crane auth login -p, regctl registry login -p, oras login -p (docker-login-password), a password echoed or
  printf-ed to docker / podman secret create and to kinit (chpasswd-echo);
- client code's positional passwords: cx_Oracle.connect(user, pw, dsn), PlainTextAuthProvider(user, pw), new
  Sequelize(db, user, pw), paramiko's client.connect(host, port, user, pw) (code-credential-pair-password), Go's
  ssh.Password("pw"), JNDI's env.put(Context.SECURITY_CREDENTIALS, "pw") (code-secret-call);
- service credential files printed: davfs2/secrets (URL user pw), ppp chap-secrets (client * secret), rsyncd.secrets
  (user:pw) (service-secrets-file-line);
- more command lines: nxc / crackmapexec / hydra / ncftp -p, mc admin user add, rclone obscure, dbca -sysPassword /
  -systemPassword (cli-tool-password-flag), az sql server create -p (cli-tool-password), rman target u/pw@db and
  impacket's dom/user:pw@host (config-cli-password), winexe -U user%pw (smb-user-password), a here-string to
  cryptsetup / vncpasswd / openconnect --passwd-on-stdin (with-token-herestring), echo | openconnect
  --passwd-on-stdin (chpasswd-echo), oc login -p (docker-login-password), T-SQL's PASSWORD = N'..'
  (sql-identified-by-password);
- config files printed: ldap.conf / nslcd.conf BINDPW, sssd's ldap_default_authtok (ldap-bind-password), ssmtp's
  AuthPass=, keepalived's auth_pass, FRR's neighbor .. password, haproxy's stats auth u:pw, snmpd's rocommunity and
  createUser .. SHA "pw" AES "pw" (config-cli-password), nginx's proxy_set_header Authorization "Basic .."
  (authorization-basic), pgbouncer's userlist.txt (service-secrets-file-line).

Negatives that must stay whole: git SHAs, UUIDs, request ids, digests, a base64 image, `password: ********`,
`--password-stdin`, and the near misses of each shape.

Values are fake: drawn at import from a seeded RNG, none from a provider."""

from __future__ import annotations

import string

from tests.fx_redteam import IDS_AND_DIGESTS, case, fake_value, redteam_tests

KEY = b"s35-secret-redteam-test-key-0123456789abcdef"

HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
PW = ALNUM + "!#%*-_.@"


def g(seed: str, alphabet: str, n: int) -> str:
    return fake_value("s35", seed, alphabet, n)


c = case


PASS = "PASSWORD"
DBPASS = "DB_PASSWORD"
REG = "REGISTRY_PASSWORD"

CASES = [
    # --- expect / pexpect ----------------------------------------------------------------------------
    c("expect-password-send", '#!/usr/bin/expect -f\nspawn ssh admin@10.0.0.5\nexpect "password:"\nsend "@0@\\r"\nexpect eof\n',
      (PASS, g("expect1", PW, 14))),
    c("expect-glob-send", 'set timeout 20\nspawn sudo -k true\nexpect "*assword*"\n    send "@0@\\r"\ninteract\n',
      (PASS, g("expect2", ALNUM, 16))),
    c("expect-brace-send", 'expect -exact "Enter passphrase for key: " { send -- "@0@\\r" }\n', (PASS, g("expect3", ALNUM, 18))),
    c("pexpect-sendline", "child = pexpect.spawn('ssh deploy@10.0.0.9')\nchild.expect('Password:')\nchild.sendline('@0@')\n",
      (PASS, g("pexpect", ALNUM, 14))),
    # --- key/value stores ----------------------------------------------------------------------------
    c("consul-kv-put", "$ consul kv put secret/db/password @0@\nSuccess! Data written to: secret/db/password\n",
      (PASS, g("consul", ALNUM, 16))),
    c("vault-kv-put", "$ vault kv put secret/app password=@0@\n======= Secret Path =======\nsecret/data/app\n",
      (PASS, g("vault", ALNUM, 16))),
    c("etcdctl-put", "$ etcdctl --endpoints=https://10.0.0.2:2379 put /app/password @0@\nOK\n", (PASS, g("etcdput", ALNUM, 14))),
    # --- OpenVPN auth-user-pass --------------------------------------------------------------------------
    c("openvpn-cat-auth-txt", "$ cat auth.txt\ndeployuser\n@0@\n", (PASS, g("ovpn1", ALNUM, 14))),
    c("openvpn-cat-etc-creds", "$ sudo cat /etc/openvpn/client/credentials.txt\nvpn-alice\n@0@\n$ ls\n", (PASS, g("ovpn2", PW, 16))),
    c("openvpn-inline-block", "client\ndev tun\nremote vpn.acme.dev 1194\n<auth-user-pass>\nvpnuser\n@0@\n</auth-user-pass>\n",
      (PASS, g("ovpn3", ALNUM, 15))),
    # --- LDAP binds in code --------------------------------------------------------------------------
    c("ldap3-connection-positional", "server = Server('ldaps://ldap.acme.dev')\nconn = Connection(server, 'cn=admin,dc=acme,dc=dev', '@0@', auto_bind=True)\n",
      (PASS, g("ldap3pos", ALNUM, 14))),
    c("ldap3-connection-keywords", "conn = Connection(server, user='cn=admin,dc=ex,dc=com', password='@0@')\n", (PASS, g("ldap3kw", ALNUM, 14))),
    c("python-ldap-simple-bind-s", "l = ldap.initialize('ldap://10.0.0.7')\nl.simple_bind_s('cn=admin,dc=example,dc=com', '@0@')\n",
      (PASS, g("pyldap", ALNUM, 12))),
    c("php-ldap-bind", '$ok = ldap_bind($ds, "uid=app,ou=people,dc=acme,dc=dev", "@0@");\n', (PASS, g("phpldap", ALNUM, 14))),
    c("ldapjs-bind", "client.bind('cn=root,ou=svc,dc=acme', '@0@', (err) => { if (err) throw err })\n", (PASS, g("ldapjs", ALNUM, 14))),
    c("go-ldap-bind", 'if err := l.Bind("cn=readonly,dc=acme,dc=dev", "@0@"); err != nil {\n', (PASS, g("goldap", ALNUM, 14))),
    # --- Neo4j: the old password too ------------------------------------------------------------------
    c("neo4j-set-password-old-and-new", "neo4j@system> ALTER CURRENT USER SET PASSWORD FROM '@0@' TO '@1@';\n",
      (DBPASS, g("neo4jold", ALNUM, 14)), (DBPASS, g("neo4jnew", ALNUM, 14))),
    # --- tools' command lines ------------------------------------------------------------------------
    c("db2-connect-using", "$ db2 connect to SAMPLE user db2inst1 using @0@\n\n   Database Connection Information\n",
      (PASS, g("db2", ALNUM, 12))),
    c("db2-prompt-connect", "db2 => CONNECT TO SAMPLE USER db2inst1 USING @0@\n", (PASS, g("db2p", ALNUM, 12))),
    c("docker-secret-create-echo", "$ echo '@0@' | docker secret create db_pass -\nr3xq9z2m8k1v0l7p6n5b4c2d1\n", (PASS, g("dsecret", ALNUM, 18))),
    c("podman-secret-create-printf", "$ printf '@0@' | podman secret create db_pass -\n", (PASS, g("psecret", ALNUM, 18))),
    c("kinit-echo", "$ echo '@0@' | kinit -V svc_etl\n", (PASS, g("kinit", ALNUM, 14))),
    c("oras-login-p", "$ oras login registry.acme.dev -u ci -p @0@\nLogin Succeeded\n", (REG, g("oras", ALNUM, 20))),
    c("crane-auth-login-p", "$ crane auth login registry.acme.dev -u ci -p @0@\n", (REG, g("crane", ALNUM, 20))),
    c("regctl-registry-login-p", "$ regctl registry login registry.acme.dev -u ci -p @0@\n", (REG, g("regctl", ALNUM, 20))),
    c("osql-P", 'C:\\> osql -S db01 -U sa -P @0@ -Q "select @@version"\n', (PASS, g("osql", ALNUM, 14))),
    c("mssql-cli-P", "$ mssql-cli -S db.acme.dev -U sa -P @0@ -d shop\n", (PASS, g("mssqlcli", ALNUM, 14))),
    c("cqlsh-p", "$ cqlsh 10.0.0.5 9042 -u cassandra -p @0@\nConnected to Test Cluster at 10.0.0.5:9042\n", (PASS, g("cqlsh", ALNUM, 14))),
    c("hdbsql-p", "$ hdbsql -n hana.acme.dev:30015 -u SYSTEM -p @0@ \"SELECT 1 FROM DUMMY\"\n", (PASS, g("hdbsql", ALNUM, 14))),
    c("evil-winrm-p", "$ evil-winrm -i 10.0.0.5 -u Administrator -p '@0@'\n", (PASS, g("winrm", ALNUM, 14))),
    c("vsql-w", "$ vsql -h vertica.acme.dev -U dbadmin -w @0@ -c 'select 1'\n", (PASS, g("vsql", ALNUM, 14))),
    c("invoke-sqlcmd-password", 'PS> Invoke-Sqlcmd -ServerInstance db01 -Username sa -Password "@0@" -Query "SELECT 1"\n',
      (PASS, g("invsql", ALNUM, 14))),
    c("databricks-put-secret", "$ databricks secrets put-secret prod db-password --string-value @0@\n", (PASS, g("dbx", ALNUM, 20))),
    c("ansible-vault-encrypt-string", "$ ansible-vault encrypt_string --vault-id prod@prompt '@0@' --name 'db_password'\n",
      (PASS, g("avault", ALNUM, 16))),
    c("rabbitmqctl-change-password", "$ rabbitmqctl change_password admin @0@\nChanging password for user \"admin\" ...\n",
      (PASS, g("rabbit", ALNUM, 14))),
    # --- client code: positional passwords (code-credential-pair-password, code-secret-call) ------------
    c("cx-oracle-connect", 'conn = cx_Oracle.connect("scott", "@0@", "db.acme.dev:1521/ORCL")\n', (PASS, g("cxora", ALNUM, 14))),
    c("cassandra-plaintext-auth", "auth_provider = PlainTextAuthProvider('cassandra', '@0@')\ncluster = Cluster(['10.0.0.5'], auth_provider=auth_provider)\n",
      (PASS, g("cass", ALNUM, 14))),
    c("sequelize-positional", "const sequelize = new Sequelize('shop', 'root', '@0@', { host: 'db', dialect: 'mysql' })\n",
      (PASS, g("sequelize", ALNUM, 14))),
    c("paramiko-connect-positional", "client = paramiko.SSHClient()\nclient.connect('10.0.0.5', 22, 'root', '@0@')\n",
      (PASS, g("paramiko", ALNUM, 14))),
    c("go-ssh-password", 'config := &ssh.ClientConfig{\n\tUser: "root",\n\tAuth: []ssh.AuthMethod{ssh.Password("@0@")},\n}\n',
      ("SECRET", g("gossh", ALNUM, 14))),
    c("jndi-security-credentials", 'env.put(Context.SECURITY_PRINCIPAL, "cn=admin,dc=acme,dc=dev");\nenv.put(Context.SECURITY_CREDENTIALS, "@0@");\n',
      ("SECRET", g("jndi", ALNUM, 14))),
    # --- service credential files printed (service-secrets-file-line) -----------------------------------
    c("davfs2-secrets", "$ sudo cat /etc/davfs2/secrets\n# personal webdav\nhttps://dav.acme.dev/remote.php/webdav bob @0@\n",
      (PASS, g("davfs", ALNUM, 14))),
    c("ppp-chap-secrets", "$ sudo cat /etc/ppp/chap-secrets\n# Secrets for authentication using CHAP\n# client\tserver\tsecret\tIP addresses\nbob\t*\t@0@\t*\n",
      (PASS, g("chap", ALNUM, 14))),
    # --- more command lines (cli-tool-password-flag, cli-tool-password, config-cli-password, smb-user-password,
    # with-token-herestring, chpasswd-echo, docker-login-password, sql-identified-by-password) -------------
    c("nxc-smb-p", "$ nxc smb 10.0.0.0/24 -u administrator -p '@0@' --shares\n", (PASS, g("nxc", ALNUM, 14))),
    c("crackmapexec-p", "$ crackmapexec winrm 10.0.0.5 -u admin -p @0@ -x whoami\n", (PASS, g("cme", ALNUM, 14))),
    c("hydra-p", "$ hydra -l admin -p @0@ -t 4 ssh://10.0.0.5\n", (PASS, g("hydra", ALNUM, 14))),
    c("ncftp-p", "$ ncftpput -u bob -p @0@ ftp.acme.dev /incoming report.pdf\n", (PASS, g("ncftp", ALNUM, 14))),
    c("mc-admin-user-add", "$ mc admin user add minio bob @0@\nAdded user `bob` successfully.\n", (PASS, g("mcuser", ALNUM, 16))),
    c("rclone-obscure", "$ rclone obscure @0@\n", (PASS, g("rclone", ALNUM, 14))),
    c("dbca-sys-system-password", "$ dbca -silent -createDatabase -gdbName orcl -sysPassword @0@ -systemPassword @1@\n",
      (PASS, g("dbcasys", ALNUM, 14)), (PASS, g("dbcasystem", ALNUM, 14))),
    c("az-sql-server-create", "$ az sql server create -n acme-sql -g rg-prod -l westeurope -u sqladmin -p '@0@'\n",
      (PASS, g("azsql", ALNUM, 14) + "!")),
    c("rman-target", "$ rman target sys/@0@@ORCL\nRecovery Manager: Release 19.0.0.0.0\n", (PASS, g("rman", ALNUM, 14))),
    c("impacket-psexec", "$ impacket-psexec acme.local/administrator:@0@@10.0.0.5\n", (PASS, g("impacket", ALNUM, 14))),
    c("wmiexec-py", "$ wmiexec.py ACME/admin:@0@@10.0.0.5 whoami\n", (PASS, g("wmiexec", ALNUM, 14))),
    c("winexe-U", "$ winexe -U 'ACME/admin%@0@' //10.0.0.5 cmd\n", (PASS, g("winexe", ALNUM, 14))),
    c("cryptsetup-herestring", "$ sudo cryptsetup luksOpen /dev/sdb1 data <<< '@0@'\n", ("SECRET", g("luks", ALNUM, 18))),
    c("vncpasswd-herestring", "$ vncpasswd -f <<< '@0@' > ~/.vnc/passwd\n", ("SECRET", g("vnc", ALNUM, 14))),
    c("openconnect-herestring", "$ sudo openconnect --user=bob vpn.acme.dev --passwd-on-stdin <<< '@0@'\n", ("SECRET", g("ocher", ALNUM, 16))),
    c("openconnect-echo", "$ echo '@0@' | sudo openconnect --user=bob --passwd-on-stdin vpn.acme.dev\n", (PASS, g("ocecho", ALNUM, 16))),
    c("oc-login-p", "$ oc login -u admin -p @0@ https://api.ocp.acme.dev:6443\nLogin successful.\n", (REG, g("oclogin", ALNUM, 16))),
    c("tsql-alter-login-n", "ALTER LOGIN sa WITH PASSWORD = N'@0@';\n", (DBPASS, g("tsql", ALNUM, 14))),
    # --- system config files printed (ldap-bind-password, config-cli-password, authorization-basic,
    # service-secrets-file-line) ------------------------------------------------------------------------
    c("ldap-conf-bindpw", "$ cat /etc/openldap/ldap.conf\nURI ldaps://ldap.acme.dev\nBINDDN cn=admin,dc=acme,dc=dev\nBINDPW @0@\n",
      (PASS, g("bindpw", ALNUM, 14))),
    c("nslcd-bindpw", "$ sudo cat /etc/nslcd.conf\nuri ldap://10.0.0.7/\nbinddn cn=svc,dc=acme,dc=dev\nbindpw @0@\n", (PASS, g("nslcd", ALNUM, 14))),
    c("sssd-authtok", "[domain/acme]\nldap_default_bind_dn = cn=svc,dc=acme,dc=dev\nldap_default_authtok = @0@\n", (PASS, g("sssd", ALNUM, 14))),
    c("ssmtp-authpass", "$ cat /etc/ssmtp/ssmtp.conf\nmailhub=smtp.acme.dev:587\nAuthUser=alerts\nAuthPass=@0@\nUseSTARTTLS=YES\n",
      (PASS, g("ssmtp", ALNUM, 14))),
    c("keepalived-auth-pass", "    authentication {\n        auth_type PASS\n        auth_pass @0@\n    }\n", (PASS, g("kalv", ALNUM, 8))),
    c("frr-neighbor-password", "router bgp 65001\n neighbor 10.0.0.2 remote-as 65002\n neighbor 10.0.0.2 password @0@\n", (PASS, g("bgp", ALNUM, 14))),
    c("haproxy-stats-auth", "listen stats\n    bind :8404\n    stats enable\n    stats auth admin:@0@\n", (PASS, g("haproxy", ALNUM, 14))),
    c("snmpd-community-usm", "rocommunity @0@ 10.0.0.0/24\ncreateUser monitor SHA \"@1@\" AES \"@2@\"\n",
      (PASS, g("community", ALNUM, 14)), (PASS, g("usmauth", ALNUM, 14)), (PASS, g("usmpriv", ALNUM, 14))),
    c("nginx-basic-header", '    proxy_set_header Authorization "Basic @0@";\n', ("BASIC_AUTH", "Y2k6" + g("nginx", ALNUM, 20))),
    c("pgbouncer-userlist", '$ cat /etc/pgbouncer/userlist.txt\n"app" "@0@"\n"stats" "@1@"\n', (PASS, g("pgb1", ALNUM, 14)), (PASS, g("pgb2", ALNUM, 14))),
    c("rsyncd-secrets", "$ cat /etc/rsyncd.secrets\nbackup:@0@\nmirror:@1@\n", (PASS, g("rsync1", ALNUM, 14)), (PASS, g("rsync2", ALNUM, 14))),
]

NEGATIVES = {
    "ids-and-digests": IDS_AND_DIGESTS,
    "masked-and-stdin": ("password: ********\n"
                         "Password: (hidden)\n"
                         "$ echo \"$CR_PAT\" | docker login ghcr.io -u ci --password-stdin\n"
                         "$ crane auth login registry.acme.dev -u ci --password-stdin < token.txt\n"
                         "$ oras login registry.acme.dev -u ci --password-stdin\n"),
    "expect-near-misses": ('expect "password:"\nsend "$env(SSH_PASS)\\r"\n'
                           'expect "*assword*"\nsend -- "[exec cat /run/secrets/pw]\\r"\n'
                           'expect "login:"\nsend "admin\\r"\n'
                           "child.expect('Password:')\nchild.sendline(os.environ['PW'])\n"
                           'we expect a password prompt and send the value from the vault\n'),
    "kv-near-misses": ("$ consul kv put config/app/replicas 3\n"
                       "$ consul kv put secret/db/password @password.txt\n"
                       "$ etcdctl put /app/password \"$DB_PASSWORD\"\n"
                       "$ etcdctl get /app/password --print-value-only\n"),
    "openvpn-near-misses": ("$ cat auth.txt\ncat: auth.txt: No such file or directory\n"
                            "$ cat /etc/openvpn/client.conf\nclient\ndev tun\nproto udp\n"
                            "auth-user-pass /etc/openvpn/auth.txt\nauth-nocache\n"),
    "ldap-near-misses": ("l.simple_bind_s('cn=admin,dc=example,dc=com', password)\n"
                         "conn = Connection(server, 'cn=admin,dc=example,dc=com', os.environ['LDAP_PW'])\n"
                         "conn.search('dc=example,dc=com', '(objectClass=person)', attributes=['cn'])\n"
                         "db = sqlite3.connect('app.db')\n"
                         "this.handler = this.handler.bind(this)\n"),
    "service-file-near-misses": ("$ cat /etc/rsyncd.conf\nsecrets file = /etc/rsyncd.secrets\nread only = yes\n"
                                 "edit /etc/ppp/chap-secrets and\nthen restart the pppd daemon to apply it\n"),
    "code-near-misses": ("auth_provider = PlainTextAuthProvider(username=user, password=pw)\n"
                         "client.connect(host, 22, 'root', key_filename=KEY_FILE)\n"
                         "Auth: []ssh.AuthMethod{ssh.Password(pw)},\n"
                         "env.put(Context.SECURITY_CREDENTIALS, System.getenv(\"LDAP_PW\"));\n"
                         "conn = cx_Oracle.connect(user, pw, dsn)\n"),
    "neo4j-default-old": "neo4j@system> ALTER CURRENT USER SET PASSWORD FROM 'neo4j' TO $newPassword;\n",
    "more-tool-near-misses": ("$ hydra -L users.txt -P rockyou.txt ssh://10.0.0.5\n"
                              "$ mc admin user add minio bob\n"
                              "$ rclone obscure -\n"
                              "$ rman target /\n"
                              "$ impacket-secretsdump -hashes :31d6cfe0d16ae931b73c59d7e0c089c0 acme/admin@10.0.0.5\n"
                              "$ sudo cryptsetup luksOpen /dev/sdb1 data --key-file /root/luks.key\n"
                              "$ oc login --token=$OC_TOKEN https://api.ocp.acme.dev:6443\n"),
    "config-near-misses": ("rocommunity public 10.0.0.0/24\n"
                           " neighbor 10.0.0.2 remote-as 65001\n"
                           "bindpw ${LDAP_BIND_PW}\n"
                           "the authorization basic credentials are read from the vault\n"
                           "proxy_set_header Authorization $http_authorization;\n"),
    "tool-near-misses": ("db2 => CONNECT TO SAMPLE\n"
                         "$ db2 connect to SAMPLE user db2inst1 using $DB2_PW\n"
                         "C:\\> osql -S db01 -E -Q \"select 1\"\n"
                         "$ cqlsh 10.0.0.5 -u cassandra\n"
                         "$ vsql -h vt -U dbadmin -w \"$VSQL_PW\"\n"
                         "$ docker secret create db_pass ./db_pass.txt\n"
                         "$ printf '%s' \"$DB_PASS\" | docker secret create db_pass -\n"
                         "$ ansible-vault encrypt_string --stdin-name db_password\n"
                         "$ databricks secrets list-secrets prod\n"),
}


red, test_secret_is_replaced_and_the_rest_kept, test_text_without_secrets_is_kept_byte_for_byte = redteam_tests(
    KEY, CASES, NEGATIVES)
