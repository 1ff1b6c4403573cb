import SessionTokenApp
import ServiceKit

await ServiceMain.run(.sessionToken, build: SessionTokenApp.build)
