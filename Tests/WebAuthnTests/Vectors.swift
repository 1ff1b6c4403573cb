// Made by make-vectors.py (PyPI fido2 2.2.1; each vector accepted by fido2.server.Fido2Server). Do not edit.
enum Vectors {
    static let json = #"""
        [
         {
          "algorithm": "ES256",
          "rpId": "localhost",
          "origin": "http://localhost:8080",
          "credentialId": "2pIz4Hlp/5PPLiGlhjeUdG81+ghB13hdFj3eSMirhFk=",
          "userHandle": "GsSOdJuwFW4aKhvg34aJww==",
          "publicKey": "pQECAyYgASFYIILDgkO9jYqdPMId6FqUWXUQRHkU7BQccmkJizSIyWezIlgg6PL8RRC+HD7YfSlopB+dGzoAp6cmFgmla4urjXXCO+g=",
          "registration": {
           "challenge": "fEX8+j/g88h518XuBxVpQgcUxDATRATBCu8iC5NqsUA=",
           "clientDataJSON": "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiZkVYOC1qX2c4OGg1MThYdUJ4VnBRZ2NVeERBVFJBVEJDdThpQzVOcXNVQSIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6ODA4MCIsImNyb3NzT3JpZ2luIjpmYWxzZX0=",
           "attestationObject": "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVikSZYN5YgOjGh0NBcPZHZgW4/krrmihjLHmVzzuoMdl2NNAAAAAAAAAAAAAAAAAAAAAAAAAAAAINqSM+B5af+Tzy4hpYY3lHRvNfoIQdd4XRY93kjIq4RZpQECAyYgASFYIILDgkO9jYqdPMId6FqUWXUQRHkU7BQccmkJizSIyWezIlgg6PL8RRC+HD7YfSlopB+dGzoAp6cmFgmla4urjXXCO+g="
          },
          "assertion": {
           "challenge": "H/R/ItaXAq74nbBCYpVhHIHyaODk7jZIW9a0NyU1ldA=",
           "clientDataJSON": "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiSF9SX0l0YVhBcTc0bmJCQ1lwVmhISUh5YU9EazdqWklXOWEwTnlVMWxkQSIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6ODA4MCIsImNyb3NzT3JpZ2luIjpmYWxzZX0=",
           "authenticatorData": "SZYN5YgOjGh0NBcPZHZgW4/krrmihjLHmVzzuoMdl2MNAAAABw==",
           "signature": "MEQCIEZHS49u7Y2dbs61PEETIC+Ed4lZGX/sOgb5LlraLKMdAiAWq9MlHPmh/FP9HT7oWcVeQhB7W/7+I9J3cUobuwhxPA==",
           "signCount": 7
          }
         },
         {
          "algorithm": "RS256",
          "rpId": "localhost",
          "origin": "http://localhost:8080",
          "credentialId": "AZdvdmwllSgD0ofR4hppR1rwmf1Nz62VvrmOEdyCJgM=",
          "userHandle": "MA4aSQTbBCX4DY4v3XMtPA==",
          "publicKey": "pAEDAzkBACBZAQCsJ4WlB5VRwxUb7IiHp1/u+NSgQW/CJfJ67tkQfuKwgSKcMle0GDYUcKuR3Ow5NiPObQjAfqGHq1LQhJyYaPO6KprsSJsreLEctw+G/nL109sQuL3pZ0PJJcpV6UxcarswBYs9WsshecUePnsY/7iVUoHbxxaS+kWRxfHYg1J3kiiu0Q9+Ej0Bo7ldzz76sRzDRU318RMfOMqQaBVaSJ3JtD8jY8r+f9f+xpJGqPTox7cSAV/L8AimGwmCYovUikHSmNcUEcAUzISwzrXgbkQvI892dS+lQr/8QyhdgwQyr7ow38Nhi5R5lzNDHqYR66/izEYlEOvkKjMVGFIDeb97IUMBAAE=",
          "registration": {
           "challenge": "oLfZbzu7smWDKuzoHA0Jch3ya2SsENiTTWUy1eJAEDM=",
           "clientDataJSON": "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoib0xmWmJ6dTdzbVdES3V6b0hBMEpjaDN5YTJTc0VOaVRUV1V5MWVKQUVETSIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6ODA4MCIsImNyb3NzT3JpZ2luIjpmYWxzZX0=",
           "attestationObject": "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVkBZ0mWDeWIDoxodDQXD2R2YFuP5K65ooYyx5lc87qDHZdjTQAAAAAAAAAAAAAAAAAAAAAAAAAAACABl292bCWVKAPSh9HiGmlHWvCZ/U3PrZW+uY4R3IImA6QBAwM5AQAgWQEArCeFpQeVUcMVG+yIh6df7vjUoEFvwiXyeu7ZEH7isIEinDJXtBg2FHCrkdzsOTYjzm0IwH6hh6tS0IScmGjzuiqa7EibK3ixHLcPhv5y9dPbELi96WdDySXKVelMXGq7MAWLPVrLIXnFHj57GP+4lVKB28cWkvpFkcXx2INSd5IortEPfhI9AaO5Xc8++rEcw0VN9fETHzjKkGgVWkidybQ/I2PK/n/X/saSRqj06Me3EgFfy/AIphsJgmKL1IpB0pjXFBHAFMyEsM614G5ELyPPdnUvpUK//EMoXYMEMq+6MN/DYYuUeZczQx6mEeuv4sxGJRDr5CozFRhSA3m/eyFDAQAB"
          },
          "assertion": {
           "challenge": "Zmq2gj6zFdmXN/bX6deEDxbg/uuca1zxI9MrI9VZAN0=",
           "clientDataJSON": "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiWm1xMmdqNnpGZG1YTl9iWDZkZUVEeGJnX3V1Y2ExenhJOU1ySTlWWkFOMCIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6ODA4MCIsImNyb3NzT3JpZ2luIjpmYWxzZX0=",
           "authenticatorData": "SZYN5YgOjGh0NBcPZHZgW4/krrmihjLHmVzzuoMdl2MNAAAABw==",
           "signature": "PPLglIe1jXrjmfwq0XwYPtary0aZ8zjH26abfqlDmTIOrYu26cIhkLFxD0LZTPoumvW8WXP364pmKu33HAJRCgfK5uNChfyEoNQBbyOtWhCSvLIBidwqdwYTcq0yc2lMhSUgJnDGlARZiXsjUS44vmtoQFLCweROb9dKh0vPllD6aNnlvlHOvp7BLfT8c3oqJHd1+7RBRh4PMhQCVyOId6NtipaSJkq0DeN4EwOifSYSZTklrU0ltSWJWGjFkzdTwfyzZjCoJ7FqmxxlALEDS0cNWAIGcQdKEsKofG9TolMIxrdjgnOR4a5stggofiPi08x4BMWqVj7EIjhYStk9Ng==",
           "signCount": 7
          }
         },
         {
          "algorithm": "EdDSA",
          "rpId": "localhost",
          "origin": "http://localhost:8080",
          "credentialId": "dcPXd6qBwcRkZQ+bv5Olq1G+ZFDScJ99wBhQK5R1lFc=",
          "userHandle": "X2kiKZZUEM16jWlidWfTKQ==",
          "publicKey": "pAEBAycgBiFYINMRzFBzHvsYL4w9Avx9Eqkf2PBWkr3g44vxiqDem7ho",
          "registration": {
           "challenge": "2Rlvr1M4IBzX6K7+LD/h7f7ePlvNpnWy+kl2jvXj3XA=",
           "clientDataJSON": "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiMlJsdnIxTTRJQnpYNks3LUxEX2g3ZjdlUGx2TnBuV3kta2wyanZYajNYQSIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6ODA4MCIsImNyb3NzT3JpZ2luIjpmYWxzZX0=",
           "attestationObject": "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YViBSZYN5YgOjGh0NBcPZHZgW4/krrmihjLHmVzzuoMdl2NNAAAAAAAAAAAAAAAAAAAAAAAAAAAAIHXD13eqgcHEZGUPm7+TpatRvmRQ0nCffcAYUCuUdZRXpAEBAycgBiFYINMRzFBzHvsYL4w9Avx9Eqkf2PBWkr3g44vxiqDem7ho"
          },
          "assertion": {
           "challenge": "vlkiuayXbdYpN/Ry1X8YuSjksT4iSDBP0AqhzmfN2kA=",
           "clientDataJSON": "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoidmxraXVheVhiZFlwTl9SeTFYOFl1U2prc1Q0aVNEQlAwQXFoem1mTjJrQSIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6ODA4MCIsImNyb3NzT3JpZ2luIjpmYWxzZX0=",
           "authenticatorData": "SZYN5YgOjGh0NBcPZHZgW4/krrmihjLHmVzzuoMdl2MNAAAABw==",
           "signature": "SkBqGCk8EzWlFNnEssXRByQ/6US9/qD99bXHBdbdwFNR40mw6elPmefDJXcFupkP02Vz6tZ8dQsvA1wE2rIfDQ==",
           "signCount": 7
          }
         }
        ]
        """#
}
