import ServiceKit
import SessionTokenApp

await ServiceMain.run(.sessionToken, build: SessionTokenApp.build)
